import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { subschemaProblems } from "../../src/apps/compat.ts";
import { valueProblems } from "../../src/apps/schemas.ts";

const str = { type: "string" };
const route = {
  type: "object",
  properties: { from: str, to: str },
  required: ["from", "to"],
  additionalProperties: false,
};

describe("schema compatibility for binding", () => {
  it("accepts an app that takes everything the entry sends, and more", () => {
    const app = { ...route, properties: { ...route.properties, via: str }, required: ["from", "to"] };
    expect(subschemaProblems(route, app)).toEqual([]);
  });

  it("names the path where the app needs more than the entry guarantees", () => {
    const strict = {
      ...route,
      properties: { ...route.properties, seats: { type: "integer" } },
      required: ["from", "to", "seats"],
    };
    expect(subschemaProblems(route, strict)).toEqual([
      { path: "/required", message: '"seats" is required, but may be missing' },
    ]);
    const shorter = { ...route, properties: { from: { type: "string", maxLength: 10 }, to: str } };
    expect(subschemaProblems(route, shorter)).toEqual([
      { path: "/properties/from/maxLength", message: "maxLength 10 is required, but not guaranteed" },
    ]);
    const numeric = { ...route, properties: { from: str, to: { type: "number" } } };
    expect(subschemaProblems(route, numeric)[0]?.path).toBe("/properties/to");
  });

  it("treats an open entry as sending anything, and refuses a closed app", () => {
    const open = { type: "object", properties: { from: str, to: str }, required: ["from", "to"] };
    expect(subschemaProblems(open, route)).toEqual([
      { path: "/additionalProperties", message: "a value may come where none is accepted" },
    ]);
  });

  it("compares enums and consts as sets, integers inside numbers", () => {
    const currency = (values: string[]) => ({ type: "object", properties: { c: { enum: values } } });
    expect(subschemaProblems(currency(["EUR"]), currency(["EUR", "USD"]))).toEqual([]);
    expect(subschemaProblems(currency(["EUR", "GBP"]), currency(["EUR", "USD"]))[0]?.message).toContain(
      '"GBP"',
    );
    expect(subschemaProblems({ const: "EUR" }, { type: "string" })).toEqual([]);
    expect(subschemaProblems({ type: "integer" }, { type: "number" })).toEqual([]);
    expect(subschemaProblems({ type: "number" }, { type: "integer" })).toHaveLength(1);
    // A constant is checked against every bound the other side sets.
    expect(subschemaProblems({ enum: [5] }, { type: "number", exclusiveMaximum: 5 })).toHaveLength(1);
    expect(subschemaProblems({ enum: [6] }, { type: "number", multipleOf: 4 })).toHaveLength(1);
    expect(subschemaProblems({ const: "x" }, { type: "string", format: "email" })).toHaveLength(1);
    // Every keyword of the other side holds at once, lengths in code points.
    expect(subschemaProblems({ const: "a" }, { type: "integer", enum: ["a", 1] })).toHaveLength(1);
    expect(subschemaProblems({ enum: ["abc"] }, { enum: ["abc", "d"], maxLength: 1 })).toHaveLength(1);
    expect(subschemaProblems({ const: "😀😀" }, { type: "string", minLength: 3 })).toHaveLength(1);
  });

  it("takes the same schema as compatible whatever its keywords, prose aside", () => {
    const either = {
      oneOf: [{ type: "object", properties: { a: str }, required: ["a"] }, { type: "string" }],
    };
    const described = {
      description: "the app's words",
      oneOf: [{ ...either.oneOf[0], title: "A" }, { type: "string" }],
    };
    expect(subschemaProblems(either, described)).toEqual([]);
    // A property named like an annotation is not prose.
    const titled = (t: string) => ({ type: "object", properties: { title: { type: t } } });
    expect(subschemaProblems(titled("string"), titled("number"))).toHaveLength(1);
  });

  it("refuses what it cannot decide instead of guessing", () => {
    const withRef = { type: "object", properties: { to: { $ref: "#/$defs/email" } } };
    expect(subschemaProblems(route, withRef)).toEqual([
      { path: "/properties/to/$ref", message: '"$ref" is a keyword binding cannot decide' },
    ]);
    expect(subschemaProblems({ anyOf: [str] }, str)[0]?.message).toContain("anyOf");
  });

  it("never calls compatible what a validator tells apart (property test)", () => {
    const leaf = fc.oneof(
      fc.constant({ type: "string" }),
      fc.constant({ type: "string", maxLength: 3 }),
      fc.constant({ type: "integer" }),
      fc.constant({ type: "number", minimum: 0 }),
      fc.constant({ enum: ["a", "b"] }),
      fc.constant({ const: "a" }),
      fc.constant({ type: "boolean" }),
    );
    const schema = fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(fc.constantFrom("a", "b", "c"), leaf, { maxKeys: 3 }),
      required: fc.subarray(["a", "b", "c"]),
      additionalProperties: fc.boolean(),
    });
    const value = fc.dictionary(
      fc.constantFrom("a", "b", "c", "d"),
      fc.oneof(
        fc.string({ maxLength: 5 }),
        fc.integer({ min: -5, max: 5 }),
        fc.double({ noNaN: true, min: -5, max: 5 }),
        fc.boolean(),
        fc.constantFrom("a", "b"),
      ),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(schema, schema, value, (sub, sup, v) => {
        if (subschemaProblems(sub, sup).length > 0) return true;
        // Compatible: whatever sub accepts, sup must accept.
        return valueProblems(sub, v).length > 0 || valueProblems(sup, v).length === 0;
      }),
      { numRuns: 3000 },
    );
  });
});
