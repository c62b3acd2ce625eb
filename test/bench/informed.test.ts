/**
 * The informed attacker's cases (#43, Build 8): a family per remedy, each a Category of its own, each
 * case planted where the host plan's q-llm answers a field the goal rewrites (so the attack reaches
 * Lattice's remedies, not only the baseline), and one quick case for most families.
 */
import { describe, expect, it } from "vitest";
import { allCases } from "../../bench/security/cases.ts";
import { INFORMED_ATTACKS, INFORMED_QUICK, informedGoals } from "../../bench/security/injections-informed.ts";
import type { Obj, PlannerView } from "../../bench/security/types.ts";

const FAMILIES = [
  "match-steering",
  "authored-values",
  "two-matched",
  "write-designate",
  "sanitiser-differential",
  "destination-shape",
  "rule-stretch",
  "artifact-laundering",
];
const VIEW: PlannerView = { query: "", queryIndex: 0, artifacts: [], catalog: true };

/** The answer schema fields of every q-llm step of the task's first plan. */
function qllmFields(steps: Obj[]): string[] {
  return steps.flatMap((s) => {
    const own = s.kind === "qllm" ? Object.keys(((s.schema as Obj)?.properties as Obj) ?? {}) : [];
    const body = Array.isArray(s.body) ? qllmFields(s.body as Obj[]) : [];
    return [...own, ...body];
  });
}

describe("the informed attacker's cases", () => {
  const cases = allCases().filter((c) => c.attack?.injection.id.startsWith("informed-"));

  it("has a case in every family, and every family is one of its goals' categories", () => {
    const categories = new Set(cases.map((c) => c.attack!.injection.category));
    expect([...categories].sort()).toEqual([...FAMILIES].sort());
    expect(new Set(informedGoals().map((g) => g.category))).toEqual(categories);
  });

  it("plants every goal it lists, and the quick ones are among them", () => {
    const planted = Object.entries(INFORMED_ATTACKS).flatMap(([task, slots]) =>
      Object.entries(slots).flatMap(([slot, ids]) => ids.map((id) => `${task}@${slot}+${id}`)),
    );
    expect(cases.map((c) => c.id).sort()).toEqual(planted.sort());
    for (const id of INFORMED_QUICK) expect(cases.find((c) => c.id === id)?.quick).toBe(true);
  });

  it("rewrites a field a q-llm of the host's first plan answers (the route into Lattice)", () => {
    for (const c of cases) {
      const fields = qllmFields(c.task.plans[0]!(VIEW).steps);
      const rules = c.attack!.injection.qllm ?? [];
      expect(
        fields.some((f) => rules.some((r) => r.field.test(f))),
        c.id,
      ).toBe(true);
    }
  });
});
