/**
 * `npm run bench:perf`: Lattice's performance figures, measured end to end over loopback HTTP against
 * the real Worker and Durable Objects running in workerd under `wrangler dev` (API and demo apps, two
 * processes, fresh temp storage), with the zero-latency scripted model. Prints tables and writes
 * bench/results/perf.json. Flags: --quick (fewer runs, smaller vault, writes nothing; for trying it out),
 * --fresh-policy (re-run bench/policy.ts even if its results are fresh), --only <phase> (that phase
 * alone, writes nothing). A dropped connection or a 5xx that is not shedding fails the run: the
 * phase's error, or the burst's counts, are printed and the exit status is non-zero.
 *
 * These are figures of one local machine: read the ratios and the growth, not the absolute values.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { type ArtifactsConfig, measureArtifacts } from "./artifacts.ts";
import { type BurstConfig, measureBurst } from "./burst.ts";
import { measureCalls } from "./calls.ts";
import { putPolicy, setupTenant, type Tenant } from "./client.ts";
import { measureOverhead, type OverheadConfig } from "./overhead.ts";
import { benchPolicy, MODEL, overheadEntries } from "./plans.ts";
import { measurePush } from "./push.ts";
import { report } from "./report.ts";
import { measureThroughput, type ThroughputConfig } from "./throughput.ts";
import { verifierFigures } from "./verifier.ts";
import { startWorkerd } from "./workerd.ts";

const quick = process.argv.includes("--quick");
const freshPolicy = process.argv.includes("--fresh-policy");
const PHASES = ["overhead", "throughput", "burst", "artifacts", "calls", "push"] as const;
type PhaseName = (typeof PHASES)[number];
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (onlyAt >= 0 && !PHASES.includes(only as PhaseName)) {
  console.error(`--only takes one of: ${PHASES.join(", ")}`);
  process.exit(2);
}
const runs = (name: PhaseName) => only === undefined || only === name;

const overheadCfg: OverheadConfig = quick
  ? { toolSizes: [0, 1, 4], qllmSizes: [4], runs: 10, warmup: 2, budgetMs: 45_000, perSession: 10 }
  : { toolSizes: [0, 1, 4, 8], qllmSizes: [1, 4, 8], runs: 40, warmup: 3, budgetMs: 180_000, perSession: 10 };
const throughputCfg: ThroughputConfig = quick
  ? { queries: 16, sessions: [1, 4, 16] }
  : { queries: 32, sessions: [1, 4, 16, 32] };
// The issue's burst (#31) in both modes: its size is the point.
const burstCfg: BurstConfig = { users: 64, perUser: 4 };
const artifactsCfg: ArtifactsConfig = quick
  ? { sizes: [100, 1_000], perFill: 200, runs: 15, queryRuns: 5 }
  : { sizes: [100, 1_000, 10_000], perFill: 200, runs: 40, queryRuns: 10 };

const started = new Date();
const loadBefore = loadavg()[0]!;
console.log(`Lattice perf bench${quick ? " (quick)" : ""}${only ? ` (${only} only)` : ""}`);
const verifier = runs("overhead") ? verifierFigures(freshPolicy) : undefined;
const entries = overheadEntries([...new Set([...overheadCfg.toolSizes, ...overheadCfg.qllmSizes, 0, 1])]);

/**
 * Each phase gets fresh runtimes and a fresh tenant, so one phase's objects and storage do not weigh
 * on the next. A phase runs once: a runtime that drops a connection or answers a 5xx under the
 * bench's load is a finding (issue #31), never retried away; the phase's error ends the run.
 */
async function phase<T>(
  name: PhaseName,
  run: (t: Tenant) => Promise<T>,
  options: { countCalls?: boolean; failed?: (result: T) => boolean } = {},
): Promise<T | undefined> {
  if (!runs(name)) return undefined;
  console.log(`${name}: starting workerd under wrangler dev…`);
  const workerd = await startWorkerd(options);
  const stopOnSignal = () => void workerd.stop().then(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const world = `bench-${Date.now().toString(36)}`;
    const tenant = await setupTenant(workerd, ["contacts"], world);
    await putPolicy(tenant, benchPolicy(entries));
    console.log(`${name}: measuring…`);
    const result = await run(tenant);
    if (options.failed?.(result)) console.error(`--- wrangler/workerd, last lines ---\n${workerd.logTail()}`);
    return result;
  } catch (error) {
    // The runtime's last words (wrangler's and workerd's output) say what dropped the connection.
    console.error(`${name}: failed: ${(error as Error).message}\n--- wrangler/workerd, last lines ---`);
    console.error(workerd.logTail());
    throw error;
  } finally {
    process.off("SIGINT", stopOnSignal);
    process.off("SIGTERM", stopOnSignal);
    await workerd.stop();
  }
}

const overhead = await phase("overhead", (t) => measureOverhead(t, overheadCfg));
const throughput = await phase("throughput", (t) => measureThroughput(t, throughputCfg));
const burst = await phase("burst", (t) => measureBurst(t, burstCfg), {
  countCalls: true,
  failed: (r) => r.failures.length > 0,
});
const artifacts = await phase("artifacts", (t) => measureArtifacts(t, artifactsCfg, entries));
const calls = await phase("calls", (t) => measureCalls(t, quick ? 3 : 8), { countCalls: true });
const push = await phase("push", (t) => measurePush(t, quick ? 5 : 20));
const results = { overhead, throughput, burst, artifacts, calls, push };

const environment = {
  date: started.toISOString(),
  durationS: Math.round((Date.now() - started.getTime()) / 1000),
  node: process.version,
  wrangler: (JSON.parse(readFileSync("node_modules/wrangler/package.json", "utf8")) as { version: string })
    .version,
  cpus: availableParallelism(),
  loadAverageBefore: loadBefore,
  loadAverageAfter: loadavg()[0]!,
  quick,
  only: only ?? null,
  model: `${MODEL.provider}:${MODEL.model} (scripted, zero latency; not a live model)`,
  runtime: "workerd via wrangler dev (local), driven over loopback HTTP from Node",
};
const full = {
  benchmark: "perf",
  environment,
  ...results,
  verifier,
  config: { overheadCfg, throughputCfg, burstCfg, artifactsCfg },
};
console.log(report({ environment, verifier, ...results }));
if (burst?.failures.length) {
  // The burst's counts are printed above; a failed bench leaves the last good figures in place.
  console.error(`\nburst failed: ${burst.failures.join("; ")}`);
  for (const s of burst.samples) console.error(`  ${s}`);
  process.exit(1);
}
if (quick || only) {
  // A quick or partial run is for trying the bench out: it never replaces the full figures.
  console.log(`\n(${quick ? "quick" : "partial"} run: bench/results/perf.json left as it was)`);
} else {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/perf.json", `${JSON.stringify(full, null, 2)}\n`);
  console.log("\nwrote bench/results/perf.json");
}
