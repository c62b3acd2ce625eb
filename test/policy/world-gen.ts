/**
 * Random worlds and plans for property tests, and an oracle: an independent, deliberately naive
 * re-computation of DSL.md's flow rules over rank numbers, sharing no code with src/policy.
 */
import fc from "fast-check";
import type { Catalog, PlanContext, PolicyInput } from "../../src/policy/index.ts";
import type { Json } from "./builders.ts";
import { policy as parse } from "./fixtures.ts";

export const CONF = ["public", "internal", "confidential", "secret"];
export const INTEG = ["untrusted", "app", "user"];
export const TOOLS = ["a.x", "a.y", "b.z", "c.w"];
export const ARGS = ["p", "q", "r"];
export const ARTIFACTS = ["art0", "art1", "art2"];
export const QUERY = "please send 42 to bob@example.com about the invoice";

/** Literals with their provenance, known by construction: the oracle does not re-derive it. */
export const LITERALS: readonly { value: Json; stated: boolean }[] = [
  { value: "bob@example.com", stated: true },
  { value: "INVOICE", stated: true },
  { value: "send", stated: true },
  { value: 42, stated: true },
  // Neither word occurs in the query: the planner chose them.
  { value: true, stated: false },
  { value: null, stated: false },
  { value: "eve@evil.example", stated: false },
  { value: "wire", stated: false },
  { value: 7, stated: false },
];

export interface World {
  readonly catalog: Record<
    string,
    { irreversible: boolean; outConf: string; outInteg: string; clearance: string }
  >;
  readonly policy: PolicyInput & { tools: Record<string, ToolPol>; display: { maxConfidentiality?: string } };
  readonly artifacts: Record<string, { c: string; i: string }>;
}

interface ToolPol {
  maxInputConfidentiality?: string;
  minInputIntegrity?: string;
  args?: Record<string, { maxConfidentiality?: string; minIntegrity?: string }>;
  output?: { confidentiality?: string; integrity?: string };
}

const conf = fc.constantFrom(...CONF);
const integ = fc.constantFrom(...INTEG);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** Drops undefined fields, so the policy document has only what the generator chose. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const toolPolicy: fc.Arbitrary<ToolPol> = fc
  .record({
    maxInputConfidentiality: maybe(conf),
    minInputIntegrity: maybe(integ),
    args: maybe(
      fc.dictionary(
        fc.constantFrom(...ARGS),
        fc.record({ maxConfidentiality: maybe(conf), minIntegrity: maybe(integ) }).map(compact),
      ),
    ),
    output: maybe(fc.record({ confidentiality: maybe(conf), integrity: maybe(integ) }).map(compact)),
  })
  .map(compact);

export const worldArb = (onViolation: "reject" | "ask" = "reject"): fc.Arbitrary<World> =>
  fc.record({
    catalog: fc.record(
      Object.fromEntries(
        TOOLS.map((t) => [
          t,
          fc.record({ irreversible: fc.boolean(), outConf: conf, outInteg: integ, clearance: conf }),
        ]),
      ) as Record<string, fc.Arbitrary<World["catalog"][string]>>,
    ),
    policy: fc.record({
      tools: fc.dictionary(fc.constantFrom(...TOOLS), toolPolicy),
      display: fc.record({ maxConfidentiality: maybe(conf) }).map(compact),
      onViolation: fc.constant(onViolation),
      limits: fc.constant({ maxSteps: 1000, maxDepth: 8 }),
    }),
    artifacts: fc.record(
      Object.fromEntries(ARTIFACTS.map((a) => [a, fc.record({ c: conf, i: integ })])) as Record<
        string,
        fc.Arbitrary<{ c: string; i: string }>
      >,
    ),
  });

export function contextOf(w: World, extra: Partial<PlanContext> = {}): PlanContext {
  const catalog: Catalog = Object.fromEntries(
    Object.entries(w.catalog).map(([t, e]) => [
      t,
      {
        irreversible: e.irreversible,
        output: { confidentiality: e.outConf, integrity: e.outInteg },
        clearance: e.clearance,
        requestSchema: { type: "object" },
      },
    ]),
  );
  const artifacts = Object.fromEntries(
    Object.entries(w.artifacts).map(([id, l]) => [id, { label: { confidentiality: l.c, integrity: l.i } }]),
  );
  return { policy: parse(w.policy), query: QUERY, catalog, artifacts, ...extra };
}

// ---- random valid plans --------------------------------------------------------------------

/** A random well-scoped plan: every ref names a visible binding, every name is fresh. */
export const planArb = (maxSteps = 14): fc.Arbitrary<{ steps: Json[] }> =>
  fc.gen().map((g) => {
    let fresh = 0;
    let budget = maxSteps;
    const int = (min: number, max: number) => g(fc.integer, { min, max });
    const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)] as T;

    const expr = (scope: readonly string[], depth: number): Json => {
      const form = int(0, depth >= 2 ? 1 : 3);
      if (form === 1 && scope.length > 0) {
        const name = pick(scope);
        return int(0, 1) ? { ref: name } : { ref: name, path: [pick(["a", "b"]), int(0, 2)] };
      }
      if (form <= 1) return { lit: pick(LITERALS).value };
      const n = int(0, 2);
      if (form === 2) {
        return {
          obj: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, expr(scope, depth + 1)])),
        };
      }
      return { arr: Array.from({ length: n }, () => expr(scope, depth + 1)) };
    };

    const pred = (scope: readonly string[], depth: number): Json => {
      switch (int(0, depth >= 1 ? 1 : 3)) {
        case 0:
          return { op: pick(["eq", "ne", "lt", "contains"]), left: expr(scope, 0), right: expr(scope, 0) };
        case 1:
          return { op: "exists", value: expr(scope, 0) };
        case 2:
          return { op: pick(["and", "or"]), args: [pred(scope, depth + 1), pred(scope, depth + 1)] };
        default:
          return { op: "not", arg: pred(scope, depth + 1) };
      }
    };

    const record = (names: readonly string[], scope: readonly string[]): Record<string, Json> =>
      Object.fromEntries(names.filter(() => int(0, 1) === 1).map((n) => [n, expr(scope, 0)]));

    /** Steps in a scope; returns them and the names they bound (for a loop's collect). */
    const steps = (outer: readonly string[], depth: number): { steps: Json[]; bound: string[] } => {
      const scope = [...outer];
      const out: Json[] = [];
      const n = int(0, 4);
      for (let i = 0; i < n && budget > 0; i++) {
        budget--;
        const kind = pick(
          depth >= 2
            ? ["retrieve", "tool", "qllm", "display", "select"]
            : ["retrieve", "tool", "qllm", "display", "select", "condition", "loop"],
        );
        const name = `v${fresh++}`;
        switch (kind) {
          case "retrieve":
            out.push({ kind, out: name, artifact: pick(ARTIFACTS) });
            scope.push(name);
            break;
          case "tool":
            out.push({
              kind,
              out: name,
              tool: pick(TOOLS),
              args: record(ARGS, scope),
              intent: "i",
              semantics: "s",
            });
            scope.push(name);
            break;
          case "qllm":
            out.push({
              kind,
              out: name,
              inputs: record(["x", "y"], scope),
              prompt: "p",
              schema: { type: "object" },
              intent: "i",
              semantics: "s",
            });
            scope.push(name);
            break;
          case "display":
            out.push(
              int(0, 2) === 0
                ? { kind, value: expr(scope, 0), title: pick(["the invoice", "Act now"]) }
                : { kind, value: expr(scope, 0) },
            );
            break;
          case "condition":
            out.push({
              kind,
              if: pred(scope, 0),
              // biome-ignore lint/suspicious/noThenProperty: the DSL names a condition's branch `then`.
              then: steps(scope, depth + 1).steps,
              else: steps(scope, depth + 1).steps,
            });
            break;
          case "select": {
            // Paths as a projection's: ["a"|"b", 0..2] is none of it in the query; [] is the item.
            const path = (): Json => (int(0, 1) ? [] : [pick(["a", "b"]), int(0, 2)]);
            const order = pick(["min", "max", "asc", "desc", "all"]);
            const step: Record<string, Json> = { kind, out: name, over: expr(scope, 0), pick: order };
            if (order !== "all") step.by = path();
            if (int(0, 1)) step.where = [{ path: path(), equals: expr(scope, 0) }];
            out.push(step);
            scope.push(name);
            break;
          }
          default: {
            const over = expr(scope, 0);
            const body = steps([...scope, name], depth + 1);
            const step: Record<string, Json> = { kind: "loop", over, as: name, body: body.steps };
            if (int(0, 1)) {
              const result = `v${fresh++}`;
              step.collect = expr([...scope, name, ...body.bound], 0);
              step.out = result;
              scope.push(result);
            }
            out.push(step);
          }
        }
      }
      return { steps: out, bound: scope.slice(outer.length) };
    };

    return { steps: steps([], 0).steps };
  });

// ---- the oracle ----------------------------------------------------------------------------

type R = readonly [c: number, i: number];
const c = (name: string) => CONF.indexOf(name);
const i = (name: string) => INTEG.indexOf(name);
const jn = (a: R, b: R): R => [Math.max(a[0], b[0]), Math.min(a[1], b[1])];
const BOTTOM: R = [0, INTEG.length - 1];
const named = (r: R) => ({ confidentiality: CONF[r[0]], integrity: INTEG[r[1]] });

/** Text the planner wrote (a q-llm prompt or schema): stated only where the query contains it. */
function plannerText(v: Json): R {
  if (v !== null && typeof v === "object") {
    return (Array.isArray(v) ? v : Object.values(v)).reduce<R>((acc, x) => jn(acc, plannerText(x)), BOTTOM);
  }
  if (typeof v === "string") return QUERY.toLowerCase().includes(v.toLowerCase()) ? BOTTOM : [0, i("app")];
  return literal(v);
}

function literal(v: Json): R {
  if (v !== null && typeof v === "object") {
    // Keys of a literal object are literals too; the generator writes none (only arrays and scalars).
    return (Array.isArray(v) ? v : Object.values(v)).reduce<R>((acc, x) => jn(acc, literal(x)), BOTTOM);
  }
  const known = LITERALS.find((l) => JSON.stringify(l.value) === JSON.stringify(v));
  if (!known) throw new Error(`oracle: unknown literal ${JSON.stringify(v)}`);
  return known.stated ? BOTTOM : [0, i("app")];
}

export interface OracleResult {
  /** "path argument rule" for every tool-flow violation; argument "(call)" for the call's pc. */
  readonly violations: string[];
  readonly labels: Record<string, { confidentiality: string | undefined; integrity: string | undefined }>;
  /** Paths of display items above the display policy. */
  readonly redacted: string[];
}

export function oracle(w: World, plan: { steps: Json[] }): OracleResult {
  const env = new Map<string, R>();
  const violations: string[] = [];
  const redacted: string[] = [];
  const pol = w.policy;

  const expr = (e: Json): R => {
    const o = e as Record<string, Json>;
    if ("lit" in o) return literal(o.lit as Json);
    // A path (here always ["a"|"b", 0..2], none of it in the query) is a choice the planner made.
    if ("ref" in o)
      return o.path ? jn(env.get(o.ref as string) as R, [0, i("app")]) : (env.get(o.ref as string) as R);
    const parts = "obj" in o ? Object.values(o.obj as Record<string, Json>) : (o.arr as Json[]);
    // So are the keys of an object (k0, k1, … are not in the query).
    const keys: R = "obj" in o && parts.length ? [0, i("app")] : BOTTOM;
    return parts.reduce<R>((acc, x) => jn(acc, expr(x)), keys);
  };
  const pred = (p: Json): R => {
    const o = p as Record<string, Json>;
    if (o.op === "and" || o.op === "or")
      return (o.args as Json[]).reduce<R>((acc, x) => jn(acc, pred(x)), BOTTOM);
    if (o.op === "not") return pred(o.arg as Json);
    if (o.op === "exists") return expr(o.value as Json);
    return jn(expr(o.left as Json), expr(o.right as Json));
  };
  const requirement = (tool: string, arg: string | null): R => {
    const e = w.catalog[tool] as World["catalog"][string];
    const tp = pol.tools[tool];
    const ap = arg === null ? undefined : tp?.args?.[arg];
    const cap = Math.min(
      c(ap?.maxConfidentiality ?? tp?.maxInputConfidentiality ?? e.clearance),
      c(e.clearance),
    );
    const floor = i(ap?.minIntegrity ?? tp?.minInputIntegrity ?? (e.irreversible ? "user" : "untrusted"));
    return [cap, floor];
  };
  const flow = (label: R, req: R, what: string) => {
    if (label[0] > req[0]) violations.push(`${what} confidentiality`);
    if (label[1] < req[1]) violations.push(`${what} integrity`);
  };

  const walk = (steps: Json[], base: string, pc: R): void => {
    steps.forEach((s, idx) => {
      const step = s as Record<string, Json>;
      const path = `${base}[${idx}]`;
      switch (step.kind) {
        case "retrieve": {
          const a = w.artifacts[step.artifact as string] as { c: string; i: string };
          env.set(step.out as string, [c(a.c), i(a.i)]);
          break;
        }
        case "tool": {
          const tool = step.tool as string;
          const e = w.catalog[tool] as World["catalog"][string];
          const out = pol.tools[tool]?.output;
          let label: R = [c(out?.confidentiality ?? e.outConf), i(out?.integrity ?? "untrusted")];
          for (const [arg, x] of Object.entries(step.args as Record<string, Json>)) {
            // An argument takes the pc's confidentiality; the pc's integrity is judged at the call.
            const l = expr(x);
            flow(jn(l, [pc[0], INTEG.length - 1]), requirement(tool, arg), `${path} ${arg}`);
            label = jn(label, l);
          }
          // The call's pc: its own floor raised to every argument's (an argument takes only the
          // pc's confidentiality, so "whether" is judged here).
          const call = requirement(tool, null);
          const floors = Object.keys(step.args as Record<string, Json>).map((a) => requirement(tool, a)[1]);
          flow(pc, [call[0], Math.max(call[1], ...floors)], `${path} (call)`);
          env.set(step.out as string, jn(label, pc));
          break;
        }
        case "qllm":
          env.set(
            step.out as string,
            Object.values(step.inputs as Record<string, Json>).reduce<R>(
              (acc, x) => jn(acc, expr(x)),
              jn(pc, jn(plannerText(step.prompt as Json), plannerText(step.schema as Json))),
            ),
          );
          break;
        case "display": {
          const l = jn(expr(step.value as Json), pc);
          if (l[0] > c(pol.display.maxConfidentiality ?? "secret")) redacted.push(path);
          break;
        }
        case "condition": {
          const inner = jn(pc, pred(step.if as Json));
          walk(step.then as Json[], `${path}.then`, inner);
          walk(step.else as Json[], `${path}.else`, inner);
          break;
        }
        case "select": {
          // Each path the planner wrote that is not empty is a choice: ["a", 1] is not in the query.
          const chosen = (p: Json | undefined): R => (Array.isArray(p) && p.length ? [0, i("app")] : BOTTOM);
          let label = jn(jn(expr(step.over as Json), pc), chosen(step.by));
          for (const wh of (step.where as Record<string, Json>[] | undefined) ?? [])
            label = jn(label, jn(expr(wh.equals as Json), chosen(wh.path)));
          env.set(step.out as string, label);
          break;
        }
        case "loop": {
          const over = expr(step.over as Json);
          const inner = jn(pc, over);
          env.set(step.as as string, jn(over, pc));
          walk(step.body as Json[], `${path}.body`, inner);
          if (step.collect !== undefined) env.set(step.out as string, jn(expr(step.collect as Json), inner));
          break;
        }
      }
    });
  };
  walk(plan.steps, "steps", BOTTOM);
  return {
    violations,
    labels: Object.fromEntries([...env.entries()].map(([k, v]) => [k, named(v)])),
    redacted,
  };
}
