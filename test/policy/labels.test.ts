import { describe, expect, it } from "vitest";
import {
  bottomLabel,
  flowAllowed,
  flowsTo,
  flowViolations,
  highest,
  join,
  joinAll,
  DEFAULT_LATTICES as L,
  type Label,
  makeLattice,
  makeLattices,
  normalizeLabel,
  topLabel,
  totalOrderProblem,
} from "../../src/policy/index.ts";

const lab = (confidentiality: string, integrity: string): Label => ({ confidentiality, integrity });

describe("lattice", () => {
  it("orders the default levels lowest first", () => {
    const c = L.confidentiality;
    expect(c.levels).toEqual(["public", "internal", "confidential", "secret"]);
    expect(c.rank("public")).toBe(0);
    expect(c.rank("secret")).toBe(3);
    expect(c.rank("nope")).toBe(-1);
    expect([c.bottom, c.top]).toEqual(["public", "secret"]);
    expect(L.integrity.levels).toEqual(["untrusted", "app", "user"]);
  });

  it("accepts a total order and refuses lists that are not one", () => {
    expect(totalOrderProblem(["low", "high"])).toBeUndefined();
    expect(totalOrderProblem([])).toMatch(/at least one level/);
    expect(totalOrderProblem(["a", "b", "a"])).toMatch(/"a" appears twice/);
    expect(totalOrderProblem(["a", ""])).toMatch(/empty/);
    expect(() => makeLattice(["a", "a"])).toThrow(/twice/);
    expect(makeLattice(["only"]).top).toBe("only");
  });

  it("interns every label of a lattice pair", () => {
    const l = makeLattices(["lo", "hi"], ["bad", "good"]);
    expect(l.labels.flat()).toHaveLength(4);
    expect(normalizeLabel(l, lab("hi", "bad"))).toBe(l.labels[1]?.[0]);
  });
});

describe("join", () => {
  it("takes the max confidentiality and the min integrity", () => {
    expect(join(L, lab("internal", "user"), lab("secret", "app"))).toEqual(lab("secret", "app"));
    expect(join(L, lab("public", "untrusted"), lab("confidential", "user"))).toEqual(
      lab("confidential", "untrusted"),
    );
  });

  it("has the query's label (public, user) as identity and is commutative", () => {
    const a = lab("confidential", "app");
    expect(join(L, bottomLabel(L), a)).toEqual(a);
    expect(join(L, a, lab("internal", "untrusted"))).toEqual(join(L, lab("internal", "untrusted"), a));
    expect(joinAll(L, [])).toEqual(lab("public", "user"));
    expect(joinAll(L, [a, lab("secret", "user")])).toEqual(lab("secret", "app"));
  });

  it("fails closed on level names the lattice does not know", () => {
    expect(join(L, lab("bogus", "user"), bottomLabel(L))).toEqual(lab("secret", "user"));
    expect(join(L, lab("public", "bogus"), bottomLabel(L))).toEqual(lab("public", "untrusted"));
    expect(normalizeLabel(L, lab("?", "?"))).toEqual(topLabel(L));
  });
});

describe("flow check: L.conf ≤ E.maxConfidentiality and L.integ ≥ E.minIntegrity", () => {
  const req = { maxConfidentiality: "internal", minIntegrity: "app" };

  it("allows a flow within both bounds", () => {
    expect(flowViolations(L, lab("internal", "app"), req)).toEqual([]);
    expect(flowAllowed(L, lab("public", "user"), req)).toBe(true);
  });

  it("refuses a flow above the confidentiality cap", () => {
    expect(flowViolations(L, lab("confidential", "user"), req)).toEqual(["confidentiality"]);
  });

  it("refuses a flow below the integrity floor", () => {
    expect(flowViolations(L, lab("public", "untrusted"), req)).toEqual(["integrity"]);
  });

  it("reports both rules when both are broken", () => {
    expect(flowViolations(L, lab("secret", "untrusted"), req)).toEqual(["confidentiality", "integrity"]);
  });

  it("treats an unknown requirement as the strictest", () => {
    const bogus = { maxConfidentiality: "??", minIntegrity: "??" };
    expect(flowViolations(L, lab("internal", "app"), bogus)).toEqual(["confidentiality", "integrity"]);
    expect(flowViolations(L, lab("public", "user"), bogus)).toEqual([]);
  });

  it("orders labels: flowsTo(a, b) iff b is at least as secret and at most as trusted", () => {
    expect(flowsTo(L, lab("public", "user"), lab("internal", "app"))).toBe(true);
    expect(flowsTo(L, lab("internal", "app"), lab("public", "user"))).toBe(false);
    expect(flowsTo(L, lab("public", "app"), lab("public", "user"))).toBe(false);
  });
});

describe("highest", () => {
  const conf = makeLattice(["public", "internal", "secret"]);
  it("is the highest level named; an unknown name counts as the top; none gives the fallback", () => {
    expect(highest(conf, ["internal", "public"], "public")).toBe("internal");
    expect(highest(conf, ["public", "no-such-level"], "public")).toBe("secret");
    expect(highest(conf, [], "internal")).toBe("internal");
  });
});
