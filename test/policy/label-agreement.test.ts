/**
 * What was verified is what runs: over random worlds and plans, the interpreter's label helpers
 * give every bound name and display the verifier's static label, for single calls and for fan-outs
 * over every app serving an entry (`providers: "all"`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  displayLabel,
  type Expr,
  exprLabel,
  guardedPc,
  indexQuery,
  initialPc,
  joinAll,
  type Label,
  loopOutLabel,
  loopVarLabel,
  outputBaseline,
  type Plan,
  type PlanContext,
  type Pred,
  policyLattices,
  predLabel,
  qllmInstructionLabel,
  qllmOutputLabel,
  type Step,
  selectOutputLabel,
  selectPathsLabel,
  type ToolStep,
  toolOutputLabel,
  type Verdict,
  validatePlan,
  verifyPlan,
} from "../../src/policy/index.ts";
import { CONF, contextOf, planArb, TOOLS, type World, worldArb } from "./world-gen.ts";

const RUNS = { numRuns: 300 };

function verified(w: World, plan: unknown, extra: Partial<PlanContext> = {}): Verdict {
  const c = contextOf(w, extra);
  const v = validatePlan(plan, c);
  if (!v.ok) throw new Error(`generated plan invalid: ${JSON.stringify(v.details)}`);
  return verifyPlan(v.plan, c);
}

describe("runtime labels are the static ones", () => {
  it("are the labels the interpreter's runtime helpers compute (what was verified is what runs)", () => {
    fc.assert(
      fc.property(worldArb(), planArb(), (w, p) => {
        const c = contextOf(w);
        const l = policyLattices(c.policy);
        const single = (s: ToolStep, args: Label[], pc: Label) =>
          toolOutputLabel(l, outputBaseline(c.policy, l, s.tool, c.catalog[s.tool]), args, pc);
        runtimeLabelsAgree(w, p, {}, single);
      }),
      RUNS,
    );
  });

  it('are the runtime labels of fan-outs too: the join of every serving app\'s own (providers: "all")', () => {
    // Each entry's targets as the hub builds them: each app's own output level, the entry's the highest.
    const targetsArb = fc.record(
      Object.fromEntries(
        TOOLS.map((t) => [t, fc.array(fc.constantFrom(...CONF), { minLength: 0, maxLength: 2 })]),
      ),
    );
    fc.assert(
      fc.property(worldArb(), planArb(), targetsArb, (world, p, lower) => {
        // A fan-out is refused on irreversible entries: the world's entries are all reversible here.
        const w: World = {
          ...world,
          catalog: Object.fromEntries(
            Object.entries(world.catalog).map(([t, e]) => [t, { ...e, irreversible: false }]),
          ),
        };
        const fanned = JSON.parse(JSON.stringify(p), (_k, v) =>
          v && v.kind === "tool" ? { ...v, providers: "all" } : v,
        ) as unknown;
        const c = contextOf(w, { trustedPlanner: true });
        const l = policyLattices(c.policy);
        const fanOut = (s: ToolStep, args: Label[], pc: Label) => {
          const entry = c.catalog[s.tool]!;
          const rank = (x: string) => CONF.indexOf(x);
          const levels = [
            entry.output.confidentiality,
            ...(lower[s.tool] ?? []).filter((x) => rank(x) <= rank(entry.output.confidentiality)),
          ];
          const perApp = levels.map((confidentiality) =>
            toolOutputLabel(
              l,
              outputBaseline(c.policy, l, s.tool, { ...entry, output: { ...entry.output, confidentiality } }),
              args,
              pc,
            ),
          );
          return joinAll(l, perApp);
        };
        runtimeLabelsAgree(w, fanned, { trustedPlanner: true }, fanOut);
      }),
      RUNS,
    );
  });
});

/** The interpreter's label rules over a plan, with `tool` for a tool step's output, against the verifier's. */
function runtimeLabelsAgree(
  w: World,
  p: unknown,
  extra: Partial<PlanContext>,
  tool: (s: ToolStep, args: Label[], pc: Label) => Label,
): void {
  const c = contextOf(w, extra);
  const v = verified(w, p, extra);
  const l = policyLattices(c.policy);
  const q = indexQuery(c.query, extra.trustedPlanner === true);
  const env = new Map<string, Label>();
  const shown: Label[] = [];
  const lookup = (n: string) => env.get(n);
  const e = (x: Expr) => exprLabel(l, x, lookup, q);
  const run = (steps: readonly Step[], pc: Label) => {
    for (const s of steps) {
      switch (s.kind) {
        case "retrieve":
          env.set(s.out, c.artifacts[s.artifact]?.label as Label);
          break;
        case "tool":
          env.set(s.out, tool(s, Object.values(s.args).map(e), pc));
          break;
        case "qllm":
          env.set(
            s.out,
            qllmOutputLabel(l, [...Object.values(s.inputs).map(e), qllmInstructionLabel(l, s, q)], pc),
          );
          break;
        case "condition": {
          const inner = guardedPc(l, pc, predLabel(l, s.if as Pred, lookup, q));
          run(s.then, inner);
          run(s.else, inner);
          break;
        }
        case "loop": {
          const over = e(s.over);
          env.set(s.as, loopVarLabel(l, over, pc));
          const inner = guardedPc(l, pc, over);
          run(s.body, inner);
          if (s.collect && s.out) env.set(s.out, loopOutLabel(l, e(s.collect), inner));
          break;
        }
        case "display":
          shown.push(displayLabel(l, e(s.value), pc, s.title, q));
          break;
        case "select":
          env.set(
            s.out,
            selectOutputLabel(
              l,
              [e(s.over), ...(s.where ?? []).map((w) => e(w.equals)), selectPathsLabel(l, s, q)],
              pc,
            ),
          );
          break;
      }
    }
  };
  run((p as Plan).steps, initialPc(l));
  for (const [name, label] of env) expect(v.labels.get(name), name).toEqual({ ...label });
  expect(v.displays.map((d) => d.label)).toEqual(shown);
}
