/** An answer's value as text, key/value lines, a table or a list; withheld parts named. */
import { describe, expect, it } from "vitest";
import { answerShape, prettyText, valueText } from "../../src/console/browser/answer.ts";

const withheld = { withheld: true, label: { confidentiality: "confidential", integrity: "trusted" } };

describe("an answer as a person reads it", () => {
  it.each([
    ["a string as text", "12 Elm Street", { kind: "text", text: "12 Elm Street" }],
    ["a number as text", 42, { kind: "text", text: "42" }],
    ["null as nothing", null, { kind: "text", text: "(nothing)" }],
    ["an empty list as nothing", [], { kind: "text", text: "(nothing)" }],
    ["an empty object as nothing", {}, { kind: "text", text: "(nothing)" }],
    ["a withheld value by its level", withheld, { kind: "text", text: "withheld (confidential)" }],
    [
      "an object as key/value lines",
      { name: "Morgan Lee", address: "12 Elm Street", units: 3 },
      {
        kind: "fields",
        rows: [
          { key: "name", text: "Morgan Lee" },
          { key: "address", text: "12 Elm Street" },
          { key: "units", text: "3" },
        ],
      },
    ],
    [
      "a list of objects as a table, columns in order of first appearance",
      [
        { app: "cheapcab", fare: 12 },
        { app: "swiftride", fare: 15, eta: "4 min" },
      ],
      {
        kind: "table",
        columns: ["app", "fare", "eta"],
        rows: [
          ["cheapcab", "12", ""],
          ["swiftride", "15", "4 min"],
        ],
      },
    ],
    ["a list of values as a list", ["milk", "eggs"], { kind: "list", items: ["milk", "eggs"] }],
    [
      "a nested value as compact JSON with its withheld part named",
      { who: { name: "A", card: withheld }, note: "x" },
      {
        kind: "fields",
        rows: [
          { key: "who", text: '{"name":"A","card":withheld (confidential)}' },
          { key: "note", text: "x" },
        ],
      },
    ],
    [
      "records keyed by name (quotes per app) as a table, the name first",
      { cheapcab: { fare: 18.15, eta_minutes: 5 }, swiftride: { fare: 12.75, currency: "EUR" } },
      {
        kind: "table",
        columns: ["Item", "fare", "eta_minutes", "currency"],
        rows: [
          ["cheapcab", "18.15", "5", ""],
          ["swiftride", "12.75", "", "EUR"],
        ],
      },
    ],
    [
      "a record holding a withheld value stays lines",
      { who: withheld, where: { city: "Bonn" } },
      {
        kind: "fields",
        rows: [
          { key: "who", text: "withheld (confidential)" },
          { key: "where", text: '{"city":"Bonn"}' },
        ],
      },
    ],
  ] as const)("shows %s", (_name, value, expected) => {
    expect(answerShape(value)).toEqual(expected);
  });

  it("never shows the withheld marker's own JSON, in a line or pretty", () => {
    const v = { to: "a@b.example", body: withheld };
    expect(valueText(v)).not.toContain('"withheld"');
    expect(prettyText(v)).toContain('"body": withheld (confidential)');
  });
});
