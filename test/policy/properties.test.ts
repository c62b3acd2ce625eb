import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  flowsTo,
  DEFAULT_LATTICES as L,
  type Label,
  type Plan,
  type PlanContext,
  PlanSchema,
  parsePolicy,
  type Step,
  type Verdict,
  validatePlan,
  verifyPlan,
} from "../../src/policy/index.ts";
import { jsonShapeError } from "../../src/policy/json-guard.ts";
import { structuralErrors } from "../../src/policy/structure.ts";
import type { Json } from "./builders.ts";
import { ctx as exampleCtx } from "./fixtures.ts";
import { contextOf, oracle, planArb, TOOLS, type World, worldArb } from "./world-gen.ts";

const RUNS = { numRuns: 300 };

function verified(w: World, plan: unknown, extra: Partial<PlanContext> = {}): Verdict {
  const c = contextOf(w, extra);
  const v = validatePlan(plan, c);
  if (!v.ok) throw new Error(`generated plan invalid: ${JSON.stringify(v.details)}`);
  return verifyPlan(v.plan, c);
}

const brief = (v: Verdict) => v.violations.map((x) => `${x.path} ${x.argument ?? "(call)"} ${x.rule}`);

/** A valid plan with 1–3 random local damages: the inputs a confused planner produces. */
const nearPlanArb: fc.Arbitrary<unknown> = fc.tuple(planArb(10), fc.gen()).map(([plan, g]) => {
  const doc = structuredClone(plan) as Json;
  const mutations = g(fc.integer, { min: 1, max: 3 });
  for (let m = 0; m < mutations; m++) {
    const holders: { parent: Record<string, Json> | Json[]; key: string | number }[] = [];
    const collect = (v: Json) => {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          holders.push({ parent: v, key: i });
          collect(v[i] as Json);
        }
      } else if (v !== null && typeof v === "object") {
        for (const [k, x] of Object.entries(v)) {
          holders.push({ parent: v, key: k });
          collect(x);
        }
      }
    };
    collect(doc);
    if (holders.length === 0) break;
    const h = holders[g(fc.integer, { min: 0, max: holders.length - 1 })] as (typeof holders)[number];
    const parent = h.parent as Record<string | number, Json>;
    switch (g(fc.integer, { min: 0, max: 4 })) {
      case 0:
        parent[h.key] = g(fc.jsonValue, { maxDepth: 2 }) as Json;
        break;
      case 1:
        if (!Array.isArray(h.parent)) delete parent[h.key];
        break;
      case 2:
        if (!Array.isArray(h.parent)) {
          const key = g(fc.constantFrom, "extra", "kind", "op", "lit", "ref", "out", "providers");
          parent[key] = key === "providers" ? g(fc.constantFrom, "all", "x") : "x";
        }
        break;
      case 3:
        parent[h.key] = { op: "eq", left: { lit: 1 }, right: { ref: "v0" } };
        break;
      default:
        parent[h.key] = g(fc.constantFrom, "", "v0", "tool", "__proto__", -1, 1.5, null, [], {}) as Json;
    }
  }
  return doc;
});

function wellFormed(r: ReturnType<typeof validatePlan>): void {
  if (r.ok) return;
  expect(r.details.length).toBeGreaterThan(0);
  for (const e of r.details) {
    expect(typeof e.path).toBe("string");
    expect(typeof e.message).toBe("string");
    expect(e.rule).not.toBe("internal");
  }
}

describe("the validator is total", () => {
  const c = exampleCtx();

  it("never throws on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => wellFormed(validatePlan(v, c))),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary JS values", () => {
    fc.assert(
      fc.property(fc.anything(), (v) => wellFormed(validatePlan(v, c))),
      { numRuns: 300 },
    );
  });

  it("never throws on damaged plans", () => {
    fc.assert(
      fc.property(nearPlanArb, worldArb(), (v, w) => wellFormed(validatePlan(v, contextOf(w)))),
      RUNS,
    );
  });

  it("accepts every generated well-scoped plan", () => {
    fc.assert(
      fc.property(planArb(), worldArb(), (p, w) => {
        expect(validatePlan(p, contextOf(w))).toMatchObject({ ok: true });
      }),
      RUNS,
    );
  });

  it("agrees with zod's PlanSchema on the shape of any JSON", () => {
    const seen = { valid: 0, invalid: 0 };
    const agree = (v: unknown) => {
      if (jsonShapeError(v)) return;
      const valid = PlanSchema.safeParse(v).success;
      expect(structuralErrors(v).length === 0).toBe(valid);
      seen[valid ? "valid" : "invalid"]++;
    };
    fc.assert(fc.property(fc.oneof(nearPlanArb, planArb(), fc.jsonValue()), agree), { numRuns: 600 });
    expect(Math.min(seen.valid, seen.invalid)).toBeGreaterThan(60);
  });

  it("parsePolicy never throws either", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (v) => {
        const r = parsePolicy(v);
        expect(typeof r.ok).toBe("boolean");
      }),
      RUNS,
    );
  });
});

describe("the verifier against an independent oracle", () => {
  it("accepts a plan iff no tool argument's static label violates its policy (and reports exactly those)", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(worldArb(), planArb(), (w, p) => {
        const v = verified(w, p);
        const o = oracle(w, p);
        expect(brief(v).sort()).toEqual(o.violations.sort());
        expect(v.ok).toBe(o.violations.length === 0);
        expect(Object.fromEntries(v.labels)).toEqual(o.labels);
        expect(v.redactions.map((r) => r.path)).toEqual(o.redacted);
        if (v.ok) accepted++;
        else rejected++;
      }),
      RUNS,
    );
    // Not vacuous: the generator produces both outcomes in quantity.
    expect(accepted).toBeGreaterThan(RUNS.numRuns / 10);
    expect(rejected).toBeGreaterThan(RUNS.numRuns / 10);
  });

  it("under `ask`, the same violations are endorsable — except data above an app's clearance", () => {
    fc.assert(
      fc.property(worldArb("ask"), planArb(), (w, p) => {
        const v = verified(w, p);
        expect(brief(v).sort()).toEqual(oracle(w, p).violations.sort());
        const conf = ["public", "internal", "confidential", "secret"];
        for (const x of v.violations) {
          const clearance = w.catalog[x.tool]?.clearance ?? "public";
          const overCap =
            x.rule === "confidentiality" && conf.indexOf(x.label.confidentiality) > conf.indexOf(clearance);
          expect(x.endorsable).toBe(!overCap);
        }
        expect(v.ok).toBe(v.violations.every((x) => x.endorsable));
      }),
      RUNS,
    );
  });
});

/** Every ref name in an expression or predicate. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) refs(x, out);
  else if (node !== null && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if (typeof o.ref === "string") out.push(o.ref);
    for (const [k, v] of Object.entries(o)) if (k !== "ref") refs(v, out);
  }
  return out;
}

describe("labels along the plan", () => {
  it("only rise in confidentiality and fall in integrity: every result is above its inputs and guards", () => {
    fc.assert(
      fc.property(worldArb(), planArb(), (w, p) => {
        const v = verified(w, p);
        const label = (n: string) => v.labels.get(n) as Label;
        const walk = (steps: readonly Step[], guards: string[]) => {
          for (const s of steps) {
            const above = (out: string, inputs: string[]) => {
              for (const n of inputs) expect(flowsTo(L, label(n), label(out)), `${n} ⊑ ${out}`).toBe(true);
            };
            switch (s.kind) {
              case "tool":
                above(s.out, [...refs(s.args), ...guards]);
                break;
              case "qllm":
                above(s.out, [...refs(s.inputs), ...guards]);
                break;
              case "condition": {
                const inner = [...guards, ...refs(s.if)];
                walk(s.then, inner);
                walk(s.else, inner);
                break;
              }
              case "loop": {
                above(s.as, [...refs(s.over), ...guards]);
                const inner = [...guards, ...refs(s.over)];
                walk(s.body, inner);
                if (s.out !== undefined) above(s.out, [...refs(s.collect), ...inner]);
                break;
              }
              default:
                break;
            }
          }
        };
        walk((p as unknown as Plan).steps, []);
      }),
      RUNS,
    );
  });
});

describe("the pc rule", () => {
  it("a tool call inside a branch on data of integrity g is checked at integrity ≤ g, at the call", () => {
    const integ = fc.constantFrom("untrusted", "app", "user");
    fc.assert(
      fc.property(worldArb(), integ, integ, fc.constantFrom(...TOOLS), (w, guardInteg, argFloor, inner) => {
        // The guard reads a tool whose output integrity the tenant fixed; the call inside passes only
        // literals the user stated, so nothing but the pc can lower its arguments' integrity.
        const world: World = {
          ...w,
          catalog: {
            ...w.catalog,
            "a.x": { irreversible: false, outConf: "public", outInteg: "user", clearance: "secret" },
          },
          policy: {
            ...w.policy,
            tools: {
              ...w.policy.tools,
              "a.x": { output: { confidentiality: "public", integrity: guardInteg } },
              [inner]: { args: { p: { minIntegrity: argFloor, maxConfidentiality: "secret" } } },
            },
          },
        };
        if (inner === "a.x") return;
        const plan = {
          steps: [
            { kind: "tool", out: "g", tool: "a.x", args: {}, intent: "i", semantics: "s" },
            {
              kind: "condition",
              if: { op: "eq", left: { ref: "g" }, right: { lit: "send" } },
              // biome-ignore lint/suspicious/noThenProperty: the DSL names a condition's branch `then`.
              then: [
                {
                  kind: "tool",
                  out: "t",
                  tool: inner,
                  args: { p: { lit: "bob@example.com" } },
                  intent: "i",
                  semantics: "s",
                },
              ],
              else: [],
            },
          ],
        };
        const v = verified(world, plan);
        const flagged = (argument: string | null) =>
          v.violations.some(
            (x) => x.path === "steps[1].then[0]" && x.argument === argument && x.rule === "integrity",
          );
        const order = ["untrusted", "app", "user"];
        // Whether the call runs is what the guard decided: the call is held to its floor ...
        const e = world.catalog[inner]!;
        const callFloor =
          world.policy.tools[inner]?.minInputIntegrity ?? (e.irreversible === false ? "untrusted" : "user");
        // (raised to its arguments' floors: a guard must not decide whether guarded values go) ...
        const floor = Math.max(order.indexOf(callFloor), order.indexOf(argFloor));
        expect(flagged(null)).toBe(order.indexOf(guardInteg) < floor);
        // ... while the literal the user stated keeps its own integrity, whatever the floor.
        expect(flagged("p")).toBe(false);
      }),
      RUNS,
    );
  });
});
