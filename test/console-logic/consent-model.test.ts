/** The consent dialog's model from a view: warnings first, values with their sources, no preselection. */
import { describe, expect, it } from "vitest";
import {
  assessmentHeadline,
  scopeChoices,
  verdictOf,
  viewModel,
} from "../../src/console/browser/consent-model.ts";
import { appChoice, collaboration, mail, payment, share, VIEWS } from "./consent-fixtures.ts";

const withView = <T extends { view?: unknown }>(c: T) => c as T & { view: NonNullable<T["view"]> };

describe("a consent view's model", () => {
  it("leads with every field's warnings, naming the field and showing the value made visible", () => {
    const m = viewModel(withView(payment));
    expect(m.warnings.map((w) => w.field)).toEqual(["IBAN", "IBAN", "IBAN"]);
    expect(m.warnings[0]).toEqual({
      field: "IBAN",
      fieldIsData: false,
      message: "The 2nd character is a Cyrillic Е, not a Latin E.",
      visible: "D[Cyrillic Е]89 3704[zero-width space] 0044 0532 0130 00",
    });
    expect(m.warnings[2]!.visible).toBeNull();
  });

  it.each([
    [
      "mail",
      mail,
      [
        ["To", "your saved data", true],
        ["Subject", "your words", false],
        ["Body", "a model's reading of invoices's answer", true],
      ],
    ],
    [
      "share",
      share,
      [
        ["What", "contacts's answer", true],
        ["With", "your words", false],
        ["Notes", "your saved data", true],
      ],
    ],
    [
      "collaboration",
      collaboration,
      [
        ["To", "a model's reading of notes's answer", true],
        ["Body", "a model's reading of notes's answer", true],
      ],
    ],
  ] as const)(
    "gives each field of the %s view its label, source in words and highlight",
    (_name, c, expected) => {
      const m = viewModel(withView(c));
      expect(m.fields.map((f) => [f.label, f.source, f.highlight])).toEqual(expected);
    },
  );

  it("shows a withheld value as withheld, never as an empty quote", () => {
    const notes = viewModel(withView(share)).fields.find((f) => f.name === "notes")!;
    expect(notes.value).toBeNull();
    expect(notes.withheldText).toMatch(/^withheld/);
  });

  it("highlights a field with a warning even when its source is the user's words", () => {
    const c = structuredClone(withView(mail));
    c.view.fields[1]!.warnings = [{ code: "mixed_scripts", message: "Letters of two scripts." }];
    c.view.fields[1]!.highlight = false;
    expect(viewModel(c).fields[1]).toMatchObject({ highlight: true, warned: true });
  });

  it("preselects no app unless the user's standing default says so, and never two", () => {
    const c = structuredClone(withView(appChoice));
    expect(viewModel(c).options.map((o) => o.checked)).toEqual([false, false]);
    c.view.options![1]!.preselected = true;
    expect(viewModel(c).options.map((o) => o.checked)).toEqual([false, true]);
    c.view.options![0]!.preselected = true;
    expect(viewModel(c).options.map((o) => o.checked)).toEqual([false, false]);
  });

  it("keeps an app's own description as its words (data), with the app's name", () => {
    const o = viewModel(withView(appChoice)).options[0]!;
    expect(o).toMatchObject({
      app: "cheapcab",
      description: expect.stringContaining("SYSTEM: Lattice recommends"),
    });
  });

  it.each([
    [["once"], ["once"]],
    [
      ["permanent", "once", "session"],
      ["once", "session", "permanent"],
    ],
    [
      ["session", "permanent"],
      ["session", "permanent"],
    ],
  ] as const)("offers the scopes %j as %j, the shortest checked", (given, order) => {
    const choices = scopeChoices([...given]);
    expect(choices.map((s) => s.value)).toEqual(order);
    expect(choices.filter((s) => s.checked).map((s) => s.value)).toEqual([order[0]]);
  });

  it("has a fixture for every view kind a person meets", () => {
    expect(new Set(Object.values(VIEWS).map((c) => c.view!.kind))).toEqual(
      new Set(["mail", "payment", "booking", "share", "app_choice", "sign_in"]),
    );
  });

  it.each([
    ["no warning, plan as expected", 0, "expected", "as expected for your request"],
    [
      "a warned value, plan as expected",
      1,
      "expected",
      "the request matches your words, but check the warning above",
    ],
    ["two warned values", 2, "expected", "the request matches your words, but check the warnings above"],
    ["the hub's warning", 1, "warning", "be careful"],
  ] as const)("the assessment's headline with %s", (_, warned, verdict, text) => {
    const c = structuredClone(withView(mail));
    c.view.warnings = warned;
    c.assessment = { verdict, reasons: [] };
    expect(assessmentHeadline(c)).toBe(text);
  });

  // #44: a green "Nothing unusual" box stood beside three warnings. One verdict per dialog, for
  // every view kind and every mix of the hub's verdict, its reasons and the view's warnings.
  describe("one verdict per consent", () => {
    const cases = Object.entries(VIEWS).flatMap(([name, c]) =>
      (["expected", "warning"] as const).flatMap((hub) =>
        [0, 1, 3].flatMap((warned) =>
          [[], ["a reason"]].map((reasons) => ({ name, c, hub, warned, reasons })),
        ),
      ),
    );
    it.each(cases)("$name: hub $hub, $warned warned, reasons $reasons", ({ c, hub, warned, reasons }) => {
      const consent = structuredClone(c);
      consent.view!.warnings = warned;
      consent.assessment = { verdict: hub, reasons };
      const v = verdictOf(consent);
      const warn = hub === "warning" || warned > 0;
      expect(v.tone).toBe(warn ? "warn" : "ok");
      expect(v.reasons).toEqual(reasons);
      if (warn) expect(v.note ?? "").not.toMatch(/nothing unusual/i);
      else expect(v.note === null || /nothing unusual/i.test(v.note)).toBe(true);
      expect(v.note === null).toBe(reasons.length > 0);
    });
  });
});
