/**
 * `npm run bench:perf`: Lattice's performance figures, measured end to end over loopback HTTP against
 * the real Worker and Durable Objects running in workerd under `wrangler dev` (API and demo apps, two
 * processes, fresh temp storage), with the zero-latency scripted model. Prints tables and writes
 * bench/results/perf.json. Flags: --quick (fewer runs, smaller vault, writes nothing; for trying it out),
 * --fresh-policy (re-run bench/policy.ts even if its results are fresh).
 *
 * These are figures of one local machine: read the ratios and the growth, not the absolute values.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { type ArtifactsConfig, measureArtifacts } from "./artifacts.ts";
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

const overheadCfg: OverheadConfig = quick
  ? { toolSizes: [0, 1, 4], qllmSizes: [4], runs: 10, warmup: 2, budgetMs: 45_000, perSession: 10 }
  : { toolSizes: [0, 1, 4, 8], qllmSizes: [1, 4, 8], runs: 40, warmup: 3, budgetMs: 180_000, perSession: 10 };
const throughputCfg: ThroughputConfig = quick
  ? { queries: 16, sessions: [1, 4, 16] }
  : { queries: 32, sessions: [1, 4, 16, 32] };
const artifactsCfg: ArtifactsConfig = quick
  ? { sizes: [100, 1_000], perFill: 200, runs: 15, queryRuns: 5 }
  : { sizes: [100, 1_000, 10_000], perFill: 200, runs: 40, queryRuns: 10 };

const started = new Date();
const loadBefore = loadavg()[0]!;
console.log(`Lattice perf bench${quick ? " (quick)" : ""}`);
const verifier = verifierFigures(freshPolicy);
const entries = overheadEntries([...new Set([...overheadCfg.toolSizes, ...overheadCfg.qllmSizes, 0, 1])]);
const retried: string[] = [];

/**
 * Each phase gets fresh runtimes and a fresh tenant, so one phase's objects and storage do not weigh
 * on the next. A phase whose runtime drops connections (under load on a busy machine, wrangler dev's
 * runtime occasionally answers "Network connection lost" or exits) is run once more from scratch, and
 * the report says so.
 */
async function phase<T>(
  name: string,
  run: (t: Tenant) => Promise<T>,
  options: { countCalls?: boolean } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
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
      return await run(tenant);
    } catch (error) {
      if (attempt >= 2 || !runtimeLost(error)) throw error;
      retried.push(name);
      console.error(
        `${name}: the runtime dropped a connection (${(error as Error).message.slice(0, 160)}); once more`,
      );
    } finally {
      process.off("SIGINT", stopOnSignal);
      process.off("SIGTERM", stopOnSignal);
      await workerd.stop();
    }
  }
}

function runtimeLost(error: unknown): boolean {
  const text = `${(error as Error)?.message} ${String((error as Error)?.cause ?? "")}`;
  return /Network connection lost|fetch failed|ECONNREFUSED|other side closed|could not be reached/.test(
    text,
  );
}

const overhead = await phase("overhead", (t) => measureOverhead(t, overheadCfg));
const throughput = await phase("throughput", (t) => measureThroughput(t, throughputCfg));
const artifacts = await phase("artifacts", (t) => measureArtifacts(t, artifactsCfg, entries));
const calls = await phase("calls", (t) => measureCalls(t, quick ? 3 : 8), { countCalls: true });
const push = await phase("push", (t) => measurePush(t, quick ? 5 : 20));
const results = { overhead, throughput, artifacts, calls, push };

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
  phasesRunTwice: retried,
  model: `${MODEL.provider}:${MODEL.model} (scripted, zero latency; not a live model)`,
  runtime: "workerd via wrangler dev (local), driven over loopback HTTP from Node",
};
const full = {
  benchmark: "perf",
  environment,
  ...results,
  verifier,
  config: { overheadCfg, throughputCfg, artifactsCfg },
};
console.log(report({ environment, verifier, ...results }));
if (quick) {
  // A quick run is for trying the bench out: it never replaces the full figures.
  console.log("\n(quick run: bench/results/perf.json left as it was)");
} else {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/perf.json", `${JSON.stringify(full, null, 2)}\n`);
  console.log("\nwrote bench/results/perf.json");
}
