/** The perf bench's printed report: tables first, then what each figure means and does not mean. */
import type { ArtifactsRow } from "./artifacts.ts";
import type { BurstResult } from "./burst.ts";
import type { CallsRow } from "./calls.ts";
import { goalRows, goalsTable } from "./goals.ts";
import type { OverheadResult } from "./overhead.ts";
import type { PushResult } from "./push.ts";
import { round, table } from "./stats.ts";
import type { ThroughputRow } from "./throughput.ts";
import type { VerifierFigures } from "./verifier.ts";

export interface ReportInput {
  environment: {
    date: string;
    node: string;
    wrangler: string;
    cpus: number;
    loadAverageBefore: number;
    model: string;
    runtime: string;
  };
  // Each absent when its phase did not run (--only).
  overhead?: OverheadResult | undefined;
  throughput?: ThroughputRow[] | undefined;
  burst?: BurstResult | undefined;
  artifacts?: ArtifactsRow[] | undefined;
  verifier?: VerifierFigures | undefined;
  calls?: CallsRow[] | undefined;
  push?: PushResult | undefined;
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : "-");
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "-");

export function report(r: ReportInput): string {
  const e = r.environment;
  const out: string[] = [
    "",
    `Lattice perf — ${e.date}, Node ${e.node}, wrangler ${e.wrangler}, ${e.cpus} CPUs, load ${e.loadAverageBefore.toFixed(2)}`,
    `runtime: ${e.runtime}; model: ${e.model}`,
  ];
  const section = (text: string) => out.push("", text);
  if (r.overhead) section(overheadSection(r.overhead));
  if (r.throughput) section(throughputSection(r.throughput));
  if (r.burst) section(burstSection(r.burst));
  if (r.artifacts) section(artifactsSection(r.artifacts));
  if (r.verifier && r.overhead) section(verifierSection(r.verifier, r.overhead));
  if (r.calls) section(callsSection(r.calls));
  if (r.push)
    section(
      [
        "## 6. Event delivery: an event's write (hub timestamp) to its receipt on an open SSE stream",
        "",
        `${r.push.events} events: p50 ${ms(r.push.delayMs.p50)} ms, p99 ${ms(r.push.delayMs.p99)} ms, max ${ms(r.push.delayMs.max)} ms (pushed by the hub as each is stored).`,
      ].join("\n"),
    );
  if (r.overhead && r.throughput) {
    const perf = { ...r, overhead: r.overhead, throughput: r.throughput };
    section(
      `## Goals (issue #16): this run's figures, and bench:security's and the catalog growth's latest\n\n${goalsTable(goalRows(perf))}`,
    );
  }
  return out.join("\n");
}

function overheadSection(o: OverheadResult): string {
  const app = o.appDirect.p50;
  const rows = o.rows.map((row) => {
    const appTime = row.kind === "tool" ? row.steps * app : 0;
    const b = row.breakdown;
    return [
      row.steps === 0
        ? "plan + display"
        : `${row.steps} ${row.kind === "tool" ? "tool" : "q-LLM"} step${row.steps > 1 ? "s" : ""}`,
      row.e2e.n,
      ms(row.e2e.p50),
      ms(row.e2e.p99),
      ms(appTime),
      ms(row.e2e.p50 - appTime),
      `${ms(b.accept)} / ${ms(b.plan)} / ${ms(b.inCalls)} / ${ms(b.between)}`,
    ];
  });
  const zero = o.rows.find((row) => row.steps === 0);
  const lines = [
    "## 1. Operator overhead per query (zero-latency scripted model)",
    "",
    table(
      [
        "query",
        "n",
        "e2e p50",
        "e2e p99",
        "app time",
        "overhead p50",
        "accept / plan / in calls / between (p50)",
      ],
      rows,
    ),
    "",
    `app time = steps x ${ms(app)} ms: the same contacts.lookup called directly from Node, signed, no Lattice (p50 ${ms(o.appDirect.p50)}, p99 ${ms(o.appDirect.p99)} ms, n ${o.appDirect.n}).`,
    `fixed cost (no steps): p50 ${ms(zero?.e2e.p50 ?? Number.NaN)} ms, p99 ${ms(zero?.e2e.p99 ?? Number.NaN)} ms.`,
    `each tool step adds ${ms(o.fits.tool.slopeMs)} ms (least squares over the p50s), of which ${ms(app)} ms is the app: ${ratio(o.fits.tool.slopeMs, app)} the app's own time.`,
    `each q-LLM step (no app, no model time) adds ${ms(o.fits.qllm.slopeMs)} ms: the hub and the vanilla spoke (steps run back to back within one invocation).`,
    `for scale: an API request that reads p50 ${ms(o.readRequest.p50)} ms; one that writes a row (waits for its commit) p50 ${ms(o.writeRequest.p50)} ms.`,
  ];
  return lines.join("\n");
}

function throughputSection(rows: ThroughputRow[]): string {
  const base = rows[0]?.qps ?? 0;
  return [
    "## 2. Throughput across concurrent sessions (one-tool-step queries, submitted as one burst)",
    "",
    table(
      [
        "sessions",
        "queries",
        "wall s",
        "queries/s",
        "vs 1 session",
        "latency p50",
        "latency p99",
        "plain reads/s",
        "vs reads",
      ],
      rows.map((row) => [
        row.sessions,
        row.queries,
        (row.wallMs / 1000).toFixed(2),
        row.qps,
        ratio(row.qps, base),
        ms(row.latency.p50),
        ms(row.latency.p99),
        row.readQps,
        ratio(row.qps, row.readQps),
      ]),
    ),
  ].join("\n");
}

function burstSection(b: BurstResult): string {
  const counts = (c: Record<string, number>) =>
    Object.entries(c)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ") || "none";
  return [
    `## 2b. Burst: ${b.queries} one-tool-step queries at once over ${b.users} users (issue #31)`,
    "",
    table(
      ["answers to the POSTs", "no HTTP answer", "accepted", "shed (Retry-After)", "sent in"],
      [[counts(b.submitted), b.transportErrors, b.accepted, b.shed, `${(b.submitMs / 1000).toFixed(2)} s`]],
    ),
    "",
    `accepted queries' ends: ${counts(b.outcomes)}; send → finish p50 ${ms(b.latency.p50)} ms, max ${ms(b.latency.max)} ms.`,
    `polls while waiting: ${counts(b.polled)}; no HTTP answer: ${b.pollTransportErrors}.`,
    b.tenantCallsPerQuery
      ? `TenantDO calls per accepted query, amortised over the burst (its polls and start-up included): ${b.tenantCallsPerQuery.total} (${counts(b.tenantCallsPerQuery.byMethod)}).`
      : "TenantDO calls: not counted.",
    b.failures.length
      ? `FAILED: ${b.failures.join("; ")}`
      : "passed: no dropped connection, no 5xx but shedding, no accepted query lost.",
  ].join("\n");
}

function artifactsSection(rows: ArtifactsRow[]): string {
  const pair = (s: { p50: number; p99: number }) => `${ms(s.p50)} / ${ms(s.p99)}`;
  const first = rows[0];
  const last = rows.at(-1);
  const lines = [
    "## 3. Artifact retrieval as one vault grows (client-side HTTP latency, p50 / p99 ms)",
    "",
    table(
      [
        "artifacts",
        "baseline (grants)",
        "list newest 100",
        "list last 100",
        "get by id",
        "0-step query p50",
        "read all metadata",
      ],
      rows.map((row) => [
        row.artifacts,
        pair(row.baseline),
        pair(row.listFirst),
        pair(row.listLast),
        pair(row.getById),
        ms(row.zeroStepQuery.p50),
        `${ms(row.fullScanMs)} ms`,
      ]),
    ),
  ];
  const filled = rows.reduce((n, row) => n + row.fillMs, 0);
  if (last && filled > 0)
    lines.push(
      "",
      `filling took ${(filled / 1000).toFixed(1)} s: ${ms(filled / last.artifacts)} ms per artifact, each one a q-LLM step (an alarm) and a store the hub journals durably.`,
    );
  if (first && last && first !== last) {
    const growth = last.artifacts / first.artifacts;
    lines.push(
      "",
      `growth from ${first.artifacts} to ${last.artifacts} artifacts (${growth}x), p50: list newest ${ratio(last.listFirst.p50, first.listFirst.p50)}, ` +
        `list last ${ratio(last.listLast.p50, first.listLast.p50)}, get by id ${ratio(last.getById.p50, first.getById.p50)}, ` +
        `0-step query ${ratio(last.zeroStepQuery.p50, first.zeroStepQuery.p50)}, baseline ${ratio(last.baseline.p50, first.baseline.p50)}.`,
    );
  }
  return lines.join("\n");
}

function callsSection(rows: CallsRow[]): string {
  const classes = ["HubDO", "SpokeDO", "TenantDO", "ArtifactsDO"];
  const one = rows.find((r) => r.query === "1 tool step");
  return [
    "## 5. Durable Object calls per query, by class (the query's own, reads taken off)",
    "",
    table(
      ["query", ...classes, "total"],
      rows.map((r) => [r.query, ...classes.map((c) => r.byClass[c] ?? 0), r.total]),
    ),
    "",
    one
      ? `1 tool step, by method: ${Object.entries(one.byMethod)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`
      : "",
  ].join("\n");
}

function verifierSection(v: VerifierFigures, o: OverheadResult): string {
  const zero = o.rows.find((row) => row.steps === 0)?.e2e.p50 ?? Number.NaN;
  const per = v.rows.find((row) => row.steps === 1_000)?.usPerStep ?? v.rows[0]?.usPerStep ?? Number.NaN;
  const lines = [
    `## 4. Verifier scaling (from ${v.source}, measured ${v.measuredAt}${v.rerun ? " by this run" : ""})`,
    "",
    table(
      ["plan steps", "validate + verify p50 ms", "µs per step"],
      v.rows.map((row) => [row.steps, ms(row.medianMs), row.usPerStep ?? "-"]),
    ),
  ];
  if (v.linearity !== undefined) lines.push("", `linearity (bench/policy.ts's measure): ${v.linearity}`);
  lines.push(
    `at ${per} µs per step a 10-step plan checks in ~${round((10 * per) / 1000, 3)} ms: ` +
      `${round((1000 * ((10 * per) / 1000)) / zero, 2)}‰ of the ${ms(zero)} ms fixed cost of a query.`,
  );
  return lines.join("\n");
}
