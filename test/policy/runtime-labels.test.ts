import { describe, expect, it } from "vitest";
import {
  constructedLabel,
  displayLabel,
  type Expr,
  exprLabel,
  guardedPc,
  indexQuery,
  initialPc,
  DEFAULT_LATTICES as L,
  type Label,
  loopOutLabel,
  loopVarLabel,
  type Pred,
  predLabel,
  projectionLabel,
  qllmOutputLabel,
  sinkLabel,
  toolOutputLabel,
} from "../../src/policy/index.ts";

const lab = (confidentiality: string, integrity: string): Label => ({ confidentiality, integrity });
const USER = lab("public", "user");
const MAIL = lab("confidential", "untrusted");
const CONTACT = lab("internal", "user");

describe("runtime label helpers", () => {
  it("a projection has the label of the whole, joined with a path the user did not state", () => {
    const q = indexQuery("mail the invoice");
    expect(projectionLabel(L, MAIL, [], q)).toBe(MAIL);
    expect(projectionLabel(L, USER, ["invoice"], q)).toEqual(USER);
    expect(projectionLabel(L, USER, [7, "email"], q)).toEqual(lab("public", "app"));
    // Catalog mode: the planner read trusted input only, so its paths are the query's.
    expect(projectionLabel(L, USER, [7, "email"], indexQuery("mail the invoice", true))).toEqual(USER);
  });

  it("a constructed value is the join of its parts (and the bottom when empty)", () => {
    expect(constructedLabel(L, [CONTACT, MAIL])).toEqual(lab("confidential", "untrusted"));
    expect(constructedLabel(L, [])).toEqual(USER);
  });

  it("a q-llm output joins its inputs and the pc", () => {
    expect(qllmOutputLabel(L, [CONTACT], USER)).toEqual(CONTACT);
    expect(qllmOutputLabel(L, [CONTACT], lab("public", "app"))).toEqual(lab("internal", "app"));
  });

  it("a tool output joins its baseline, arguments and pc", () => {
    expect(toolOutputLabel(L, lab("internal", "user"), [USER], USER)).toEqual(lab("internal", "user"));
    expect(toolOutputLabel(L, lab("public", "user"), [MAIL], USER)).toEqual(MAIL);
    expect(toolOutputLabel(L, lab("public", "user"), [], lab("secret", "user"))).toEqual(
      lab("secret", "user"),
    );
  });

  it("loops and conditions raise the pc; the loop variable and out carry it", () => {
    const pc = guardedPc(L, initialPc(L), MAIL);
    expect(pc).toEqual(MAIL);
    expect(loopVarLabel(L, CONTACT, initialPc(L))).toEqual(CONTACT);
    expect(loopOutLabel(L, USER, pc)).toEqual(MAIL);
    // An argument takes the pc's confidentiality; its integrity is judged at the call itself.
    expect(sinkLabel(L, CONTACT, pc)).toEqual(lab("confidential", CONTACT.integrity));
  });

  it("what reaches the display joins the value, the pc and the title's provenance", () => {
    const q = indexQuery("show the invoice");
    expect(displayLabel(L, CONTACT, USER, "Invoice", q)).toEqual(CONTACT);
    expect(displayLabel(L, CONTACT, USER, "Act now!", q)).toEqual(lab("internal", "app"));
    expect(displayLabel(L, USER, MAIL, undefined, q)).toEqual(MAIL);
  });

  it("computes an expression's label from the bound names' labels", () => {
    const env: Record<string, Label> = { c: CONTACT, m: MAIL };
    const lookup = (n: string) => env[n];
    const q = indexQuery("mail bob a note to his email");
    const e: Expr = { obj: { to: { ref: "c", path: ["email"] }, note: { lit: "bob" } } };
    expect(exprLabel(L, e, lookup, q)).toEqual(CONTACT);
    // Keys and paths the query does not state are the planner's choice.
    const chosen: Expr = { obj: { cc: { ref: "c", path: ["backup"] } } };
    expect(exprLabel(L, chosen, lookup, q)).toEqual(lab("internal", "app"));
    expect(exprLabel(L, { arr: [{ ref: "c" }, { ref: "m" }] }, lookup, q)).toEqual(
      lab("confidential", "untrusted"),
    );
    expect(exprLabel(L, { lit: "eve" }, lookup, q)).toEqual(lab("public", "app"));
    expect(exprLabel(L, { ref: "unbound" }, lookup, q)).toEqual(lab("secret", "untrusted"));
    const p: Pred = {
      op: "and",
      args: [
        { op: "exists", value: { ref: "c" } },
        { op: "not", arg: { op: "eq", left: { ref: "m" }, right: { lit: 1 } } },
      ],
    };
    expect(predLabel(L, p, lookup, q)).toEqual(lab("confidential", "untrusted"));
  });
});
