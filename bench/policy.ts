/**
 * Policy-core benchmark: validate + verify time for plans of 100, 1,000 and 10,000 steps.
 * Run with `npm exec -- node bench/policy.ts` (Node ≥ 22.18 strips the types). Prints a table and
 * writes bench/results/policy.json. Goal: 1,000 steps in ≤ 5 ms, growth linear in plan size.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { type PlanContext, parsePolicy, type Step, validatePlan, verifyPlan } from "../src/policy/index.ts";
import { EXAMPLE_POLICY_INPUT, EXAMPLE_QUERY, MAIL_CATALOG } from "../test/policy/fixtures.ts";

const SIZES = [100, 1_000, 10_000];
/** Unmeasured rounds over every size, for the JIT. */
const WARMUP = 10;
/** Unmeasured runs of a size before its timed runs, for the GC to reach its steady state. */
const SETTLE = 5;
const RUNS = 31;

// DSL.md's example world (the same fixtures the policy tests use), with room for 10,000 steps.
const parsed = parsePolicy({ ...EXAMPLE_POLICY_INPUT, limits: { maxSteps: 100_000, maxDepth: 4 } });
if (!parsed.ok) throw new Error("bench policy invalid");

const artifacts = Object.fromEntries(
  Array.from({ length: 50 }, (_, i) => [
    `art${i}`,
    { label: { confidentiality: "internal", integrity: "user" } },
  ]),
);

const ctx: PlanContext = {
  policy: parsed.policy,
  query: EXAMPLE_QUERY,
  catalog: MAIL_CATALOG,
  artifacts,
  // A stand-in for the Worker's JSON Schema checker: it costs a call per literal argument set.
  checkSchema: () => [],
};

/**
 * One block of 11 steps using every kind, nested conditions and loops, and a q-llm chain that
 * reaches back through every previous block (a long dependency path, the worst case for copying).
 */
function block(i: number): Step[] {
  const emails = { ref: `s${i}` };
  return [
    { kind: "retrieve", out: `a${i}`, artifact: `art${i % 50}` },
    {
      kind: "tool",
      out: `s${i}`,
      tool: "mail.search",
      args: { query: { lit: "invoice" } },
      intent: "find invoices",
      semantics: "invoice emails",
    },
    {
      kind: "qllm",
      out: `q${i}`,
      inputs: i > 0 ? { emails, prev: { ref: `q${i - 1}` } } : { emails },
      prompt: "Add up the invoice amounts.",
      schema: { type: "object", properties: { total: { type: "number" } } },
      intent: "total",
      semantics: "sum",
    },
    {
      kind: "tool",
      out: `c${i}`,
      tool: "contacts.lookup",
      args: { name: { lit: "accountant" } },
      intent: "find the accountant",
      semantics: "contact",
    },
    {
      kind: "tool",
      out: `m${i}`,
      tool: "mail.send",
      args: { to: { ref: `c${i}`, path: ["email"] }, body: { ref: `q${i}`, path: ["total"] } },
      intent: "send the total",
      semantics: "receipt",
    },
    {
      kind: "condition",
      if: { op: "gt", left: { ref: `q${i}`, path: ["total"] }, right: { lit: 0 } },
      // biome-ignore lint/suspicious/noThenProperty: the DSL names a condition's branch `then`.
      then: [{ kind: "display", value: { ref: `q${i}` } }],
      else: [{ kind: "display", value: { lit: "no invoices" } }],
    },
    {
      kind: "loop",
      over: { ref: `s${i}` },
      as: `e${i}`,
      body: [{ kind: "display", value: { ref: `e${i}`, path: ["subject"] } }],
      collect: { obj: { from: { ref: `e${i}`, path: ["from"] } } },
      out: `l${i}`,
    },
    { kind: "display", value: { arr: [{ ref: `l${i}` }, { ref: `a${i}` }] }, title: "summary" },
  ];
}

const BLOCK_STEPS = 11;

function plan(steps: number): { steps: Step[] } {
  const out: Step[] = [];
  const blocks = Math.floor(steps / BLOCK_STEPS);
  for (let i = 0; i < blocks; i++) out.push(...block(i));
  for (let i = blocks * BLOCK_STEPS; i < steps; i++) out.push({ kind: "display", value: { lit: i } });
  return { steps: out };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

/** RUNS is odd, so this is the middle run. */
const median = (xs: number[]) => quantile(xs, 0.5);

const round = (x: number) => Math.round(x * 1000) / 1000;

interface Sample {
  validate: number;
  verify: number;
  total: number;
}

function once(input: unknown): Sample {
  const t0 = performance.now();
  const v = validatePlan(input, ctx);
  const t1 = performance.now();
  if (!v.ok) throw new Error(`bench plan invalid: ${JSON.stringify(v.details.slice(0, 3))}`);
  const verdict = verifyPlan(v.plan, ctx);
  const t2 = performance.now();
  if (!verdict.ok) throw new Error("bench plan rejected");
  return { validate: t1 - t0, verify: t2 - t1, total: t2 - t0 };
}

// First the JIT: every size a few times, so the code is fully optimised before anything is timed.
const texts = new Map(SIZES.map((size) => [size, JSON.stringify(plan(size))]));
for (let i = 0; i < WARMUP; i++) for (const text of texts.values()) once(JSON.parse(text));

// Then each size on its own, after a few runs of that size alone, so every timed run pays only for
// its own garbage (interleaving sizes made small plans pay for the big ones' collections). As in
// production, each run checks a plan freshly parsed from the planner's JSON text.
const samples = new Map<number, Sample[]>();
for (const size of SIZES) {
  const text = texts.get(size) as string;
  const runs: Sample[] = [];
  for (let run = 0; run < SETTLE + RUNS; run++) {
    const sample = once(JSON.parse(text));
    if (run >= SETTLE) runs.push(sample);
  }
  samples.set(size, runs);
}

const results = SIZES.map((size) => {
  const s = samples.get(size) ?? [];
  const of = (k: keyof Sample) => s.map((x) => x[k]);
  return {
    steps: size,
    medianMs: round(median(of("total"))),
    validateMedianMs: round(median(of("validate"))),
    verifyMedianMs: round(median(of("verify"))),
    minMs: round(Math.min(...of("total"))),
    p90Ms: round(quantile(of("total"), 0.9)),
    usPerStep: round((median(of("total")) * 1000) / size),
  };
});

const at = (n: number) => results.find((r) => r.steps === n);
const perStep1k = at(1_000)?.usPerStep ?? 0;
const perStep10k = at(10_000)?.usPerStep ?? 0;
const report = {
  benchmark: "policy: validate + verify",
  node: process.version,
  date: new Date().toISOString(),
  /** 1-minute load average when the run ended, against the CPU count: above ~0.5 per CPU, expect noise. */
  loadAverage: round(loadavg()[0] ?? 0),
  cpus: availableParallelism(),
  warmup: WARMUP,
  settle: SETTLE,
  runs: RUNS,
  results,
  goal: { steps: 1_000, maxMs: 5, met: (at(1_000)?.medianMs ?? Number.POSITIVE_INFINITY) <= 5 },
  /** µs per step at 10,000 over µs per step at 1,000: about 1 when growth is linear. */
  linearity: round(perStep10k / perStep1k),
  /** The same from the fastest runs, which other processes on the machine disturb least. */
  linearityOfMin: round((at(10_000)?.minMs ?? 0) / 10 / (at(1_000)?.minMs ?? 1)),
};

console.log("steps    median   validate verify   p90 (ms)  µs/step");
for (const r of results) {
  const cells = [r.steps, r.medianMs, r.validateMedianMs, r.verifyMedianMs, r.p90Ms].map((x) =>
    String(x).padEnd(8),
  );
  console.log(`${cells.join(" ")}  ${r.usPerStep}`);
}
console.log(
  `goal 1,000 steps ≤ 5 ms: ${report.goal.met ? "met" : "NOT met"}; linearity (µs/step 10k ÷ 1k): ${report.linearity} (of fastest runs: ${report.linearityOfMin}); load ${report.loadAverage} on ${report.cpus} CPUs`,
);

const dir = new URL("./results/", import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL("policy.json", dir), `${JSON.stringify(report, null, 2)}\n`);
