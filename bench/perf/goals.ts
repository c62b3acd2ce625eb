/**
 * Issue #16's table: each speed goal beside what the latest figures in bench/results/ measure.
 * Perf rows come from this run (or perf.json), the latency and token rows from the last
 * bench:security run (security.json), the catalog-growth row from catalog-growth.json.
 */
import { existsSync, readFileSync } from "node:fs";

export interface GoalRow {
  measure: string;
  goal: string;
  measured: string;
  met: boolean | null;
}

interface PerfFigures {
  overhead: {
    fits: { tool: { slopeMs: number }; qllm: { slopeMs: number } };
    appDirect: { p50: number };
    writeRequest: { p50: number };
    rows: Array<{ kind: string; steps: number; e2e: { p50: number } }>;
  };
  throughput: Array<{ sessions: number; qps: number; readQps?: number }>;
  calls?: Array<{ query: string; byClass: Record<string, number>; total: number }>;
  push?: { events: number; delayMs: { p50: number; max: number } };
}

const read = (path: string): unknown => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : null);
const f2 = (x: number) => x.toFixed(2);

export function goalRows(perf: PerfFigures, resultsDir = "bench/results"): GoalRow[] {
  const o = perf.overhead;
  const app = o.appDirect.p50;
  const hubPerTool = o.fits.tool.slopeMs - app;
  const zero = o.rows.find((r) => r.steps === 0)?.e2e.p50 ?? Number.NaN;
  const one = perf.throughput.find((r) => r.sessions === 1);
  const many = perf.throughput.at(-1);
  const rows: GoalRow[] = [
    {
      measure: "hub cost per tool step ÷ the app's own time",
      goal: "≤ 0.25×",
      measured: `${f2(hubPerTool / app)}× (${f2(hubPerTool)} ms beside ${f2(app)} ms)`,
      met: hubPerTool / app <= 0.25,
    },
    {
      measure: "0-step query ÷ one authenticated write request",
      goal: "≤ 1.0×",
      measured: `${f2(zero / o.writeRequest.p50)}× (${zero} ms ÷ ${o.writeRequest.p50} ms)`,
      met: zero / o.writeRequest.p50 <= 1,
    },
    {
      measure: "hub cost per q-llm step (no model time)",
      goal: "≤ 3 ms",
      measured: `${f2(o.fits.qllm.slopeMs)} ms`,
      met: o.fits.qllm.slopeMs <= 3,
    },
  ];
  if (one && many) {
    const scale = many.qps / one.qps;
    const vsRead = many.readQps ? many.qps / many.readQps : Number.NaN;
    rows.push({
      measure: `throughput, ${many.sessions} sessions ÷ 1 session`,
      goal: "≥ 1.8×, and ≥ 0.5× plain reads at that concurrency",
      measured: `${f2(scale)}×; ${f2(vsRead)}× of ${many.readQps ?? "-"} reads/s`,
      met: scale >= 1.8 && vsRead >= 0.5,
    });
  }
  if (perf.push) {
    rows.push({
      measure: "event written → client received (push, not poll)",
      goal: "pushed as written",
      measured: `p50 ${perf.push.delayMs.p50} ms, max ${perf.push.delayMs.max} ms over ${perf.push.events} events`,
      met: perf.push.delayMs.p50 <= 10,
    });
  }
  const security = read(`${resultsDir}/security.json`) as {
    generatedAt?: string;
    summary?: { ratios?: Record<string, { tokens: number; latency: number }> };
  } | null;
  const ratios = security?.summary?.ratios;
  if (ratios) {
    const best = (k: "tokens" | "latency") =>
      ["catalog-ask-informed", "catalog-strict"]
        .map((c) => `${c} ${f2(ratios[c]?.[k] ?? Number.NaN)}×`)
        .join(", ");
    const latency = ratios["catalog-ask-informed"]?.latency ?? Number.NaN;
    const tokens = ratios["catalog-ask-informed"]?.tokens ?? Number.NaN;
    rows.push(
      {
        measure: "e2e latency vs the vanilla agent (bench:security)",
        goal: "≤ 0.9×",
        measured: `${best("latency")} (${security?.generatedAt ?? "?"})`,
        met: latency <= 0.9,
      },
      {
        measure: "model tokens per benign task vs the vanilla agent",
        goal: "≤ 0.5×",
        measured: best("tokens"),
        met: tokens <= 0.5,
      },
    );
  }
  type Growth = Array<{ entries: number; promptTokens: number }>;
  const growth = read(`${resultsDir}/catalog-growth.json`) as { before?: Growth; after?: Growth } | null;
  const at = (rows: Growth | undefined, n: number) => rows?.find((r) => r.entries === n)?.promptTokens;
  const series = (rows: Growth | undefined) => [10, 100, 1000].map((n) => at(rows, n) ?? "-").join(" → ");
  if (growth?.after) {
    rows.push({
      measure: "planner prompt at 10 → 100 → 1,000 catalog functionalities",
      goal: "sublinear, ≤ 10k tokens at 1,000",
      measured: `${series(growth.after)} tokens (before: ${series(growth.before)})`,
      met: (at(growth.after, 1000) ?? Number.POSITIVE_INFINITY) <= 10_000,
    });
  } else {
    rows.push({
      measure: "planner prompt at 10 → 100 → 1,000",
      goal: "≤ 10k at 1,000",
      measured: "not measured",
      met: null,
    });
  }
  return rows;
}

export function goalsTable(rows: GoalRow[]): string {
  const mark = (m: boolean | null) => (m === null ? "?" : m ? "met" : "not met");
  const lines = ["| measure | goal | measured | |", "| --- | --- | --- | --- |"];
  for (const r of rows) lines.push(`| ${r.measure} | ${r.goal} | ${r.measured} | ${mark(r.met)} |`);
  return lines.join("\n");
}
