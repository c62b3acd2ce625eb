import { describe, expect, it } from "vitest";
import {
  indexQuery,
  isStated,
  DEFAULT_LATTICES as L,
  literalLabel,
  makeLattices,
} from "../../src/policy/index.ts";

const numbers = (q: string) => [...indexQuery(q).numbers].sort((a, b) => a - b);

describe("numbers written in the query", () => {
  it("reads plain integers and decimals", () => {
    expect(numbers("buy 3 apples for 2.50")).toEqual([2.5, 3]);
  });

  it("reads grouped thousands in both conventions, and the ambiguous reading too", () => {
    expect(numbers("pay 1,250.50")).toEqual([1250.5]);
    expect(numbers("pay 1.250,50")).toEqual([1250.5]);
    expect(numbers("pay 1,250")).toEqual([1.25, 1250]);
    expect(numbers("1,5 kg")).toEqual([1.5]);
  });

  it("does not read a number inside another number", () => {
    expect(isStated(3, indexQuery("13 apples"))).toBe(false);
    expect(isStated(5, indexQuery("pay 1.5"))).toBe(false);
  });

  it("reads each group of a run that is no single number", () => {
    expect(numbers("version 1.2.3")).toEqual([1, 2, 3]);
  });

  it("adds the negative only for a real minus sign, not a hyphen", () => {
    expect(numbers("refund -20")).toEqual([-20, 20]);
    expect(numbers("on 2024-05-01")).toEqual([1, 5, 2024]);
  });
});

describe("strings stated in the query", () => {
  const q = indexQuery("Send the Report to Bob");

  it("match as substrings, ignoring ASCII case", () => {
    expect(isStated("report", q)).toBe(true);
    expect(isStated("SEND THE", q)).toBe(true);
    expect(isStated("alice", q)).toBe(false);
  });

  it("do not fold non-ASCII case (no homoglyph passes for a letter)", () => {
    expect(isStated("\u212Aelvin", indexQuery("kelvin"))).toBe(false);
    expect(isStated("Zürich", indexQuery("zürich"))).toBe(true);
    expect(isStated("ZÜRICH", indexQuery("zürich"))).toBe(false);
  });

  it("count true, false and null as stated only where the query writes the word", () => {
    expect(isStated(true, q)).toBe(false);
    expect(isStated(null, q)).toBe(false);
    expect(isStated(false, indexQuery("set reminders to false"))).toBe(true);
  });

  it("need a short string to be a whole word, and never take the empty string", () => {
    expect(isStated("to", q)).toBe(true);
    expect(isStated("ep", q)).toBe(false); // only inside "Report"
    expect(isStated("", q)).toBe(false);
  });

  it("are all the user's in catalog mode, where the planner read trusted input only", () => {
    expect(literalLabel(L, "mallory", indexQuery("Send the Report to Bob", true)).integrity).toBe("user");
  });
});

describe("literalLabel", () => {
  const q = indexQuery("transfer 40 to bob");

  it("is (public, user) when stated and (public, app) otherwise", () => {
    expect(literalLabel(L, "bob", q)).toEqual({ confidentiality: "public", integrity: "user" });
    expect(literalLabel(L, 41, q)).toEqual({ confidentiality: "public", integrity: "app" });
  });

  it("joins the keys and leaves of a composite literal", () => {
    expect(literalLabel(L, { to: ["bob", 40] }, q).integrity).toBe("user");
    expect(literalLabel(L, { to: ["bob", "eve"] }, q).integrity).toBe("app");
    expect(literalLabel(L, { anything: ["bob", 40] }, q).integrity).toBe("app");
    expect(literalLabel(L, [], q).integrity).toBe("user");
  });

  it("falls back to the bottom integrity on a lattice without an `app` level", () => {
    const l = makeLattices(["low", "high"], ["tainted", "clean"]);
    expect(literalLabel(l, "eve", q)).toEqual({ confidentiality: "low", integrity: "tainted" });
    expect(literalLabel(l, "bob", q)).toEqual({ confidentiality: "low", integrity: "clean" });
  });
});
