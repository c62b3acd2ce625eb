/**
 * Runs the Lattice API and the demo apps under `wrangler dev` for a benchmark: two processes (wrangler
 * gives a port only to the first of several configs), free loopback ports, their own inspector ports
 * (the default 9229 would collide with anyone else's wrangler), and a random operator secret.
 *
 * Each Worker is bundled once, at start, into a fresh temp dir beside a copy of its wrangler.toml, and
 * served from there with --no-bundle: wrangler dev reloads on every source change, which would cut
 * a run short whenever someone edits the repo, so the bench measures a snapshot of the code instead.
 * The temp dir also holds the local storage, and no .dev.vars: the developer's secrets and
 * .wrangler/state are neither read nor touched. Everything is removed afterwards.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { freePort } from "../../scripts/lib.ts";

export interface Workerd {
  api: string;
  apps: string;
  operatorSecret: string;
  /** The API's inspector (Chrome DevTools Protocol), for bench/perf/profile.ts. */
  inspector: number;
  /** The last of wrangler's and workerd's output (both processes), for a failure's report. */
  logTail(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 120_000;

/**
 * Requests go straight to the UserWorker (the workerd serving Lattice), not through wrangler dev's
 * ProxyWorker on the public port: under load that proxy's pooled connection to the UserWorker races
 * kj's 5 s keep-alive close, is reset, and wrangler 4.125 exits on the error (issue #31, README).
 * Deployed, no such proxy stands in front of a Worker. LATTICE_BENCH_VIA_PROXY=1 goes through it.
 */
const VIA_PROXY = process.env.LATTICE_BENCH_VIA_PROXY === "1";
/** Where wrangler's debug output names the UserWorker (the ProxyWorker's "reloadComplete"). */
const USER_WORKER_URL = /"userWorkerUrl":\{"protocol":"http:","hostname":"([^"]+)","port":"(\d+)"/;
const START_ATTEMPTS = 3;

/** Starts both Workers; retried, because a free port found here may be taken by someone else first. */
export async function startWorkerd(options: { countCalls?: boolean } = {}): Promise<Workerd> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(attempt === START_ATTEMPTS, options.countCalls === true);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
      console.error(`wrangler dev did not start (${(error as Error).message}); retrying on other ports`);
    }
  }
}

async function startOnce(last: boolean, countCalls: boolean): Promise<Workerd> {
  const root = mkdtempSync(join(tmpdir(), "lattice-perf-"));
  const operatorSecret = Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");
  const [apiPort, appsPort] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    rmSync(root, { recursive: true, force: true });
  };
  // A fresh sealing secret (the state is temporary), and no rate limit: the bench measures the hub.
  const keySecret = Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");
  const vars = [
    ...["--var", `LATTICE_OPERATOR_SECRET:${operatorSecret}`, "--var", "LATTICE_MODE:dev"],
    ...["--var", `LATTICE_KEY_SECRET:${keySecret}`, "--var", "LATTICE_RATE_LIMIT:off"],
    // Only the calls phase counts Durable Object calls (a Proxy per stub), so no timed phase pays for it.
    ...(countCalls ? ["--var", "LATTICE_COUNT_CALLS:on"] : []),
  ];
  try {
    const apiConfig = snapshot(root, "api", "wrangler.toml", "src/worker/index.ts");
    const appsConfig = snapshot(root, "apps", "examples/apps/wrangler.toml", "examples/apps/src/index.ts");
    // One storage dir per process: two workerd processes on one dir collide (SQLITE_BUSY).
    const inspector = await freePort();
    const direct: { api?: string; apps?: string } = {};
    const apiState = join(root, "state-api");
    const appsState = join(root, "state-apps");
    children.push(
      await wrangler(apiConfig, apiPort, inspector, apiState, vars, logs, (u) => (direct.api = u)),
    );
    children.push(
      await wrangler(appsConfig, appsPort, await freePort(), appsState, [], logs, (u) => (direct.apps = u)),
    );
    const publicApi = `http://127.0.0.1:${apiPort}`;
    const publicApps = `http://127.0.0.1:${appsPort}`;
    await Promise.all([
      waitFor(`${publicApi}/healthz`, children),
      waitFor(`${publicApps}/healthz`, children),
    ]);
    const [api, apps] = VIA_PROXY
      ? [publicApi, publicApps]
      : [await named(() => direct.api, "the API's"), await named(() => direct.apps, "the apps'")];
    await Promise.all([waitFor(`${api}/healthz`, children), waitFor(`${apps}/healthz`, children)]);
    const health = (await (await fetch(`${api}/healthz`)).json()) as { mode?: string };
    // The demo apps listen on loopback, which only dev mode lets spokes call.
    if (health.mode !== "dev") throw new Error(`the API came up in ${health.mode} mode, not dev`);
    const logTail = () => logs.join("").slice(-8000);
    return { api, apps, operatorSecret, inspector, logTail, stop };
  } catch (error) {
    await stop();
    if (last) console.error(logs.join("").slice(-4000));
    throw error;
  }
}

/** The Worker bundled as wrangler would (workerd conditions), with its config pointing at the bundle. */
function snapshot(root: string, name: string, config: string, entry: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  buildSync({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*", "node:*"],
    outfile: join(dir, "worker.mjs"),
    logLevel: "warning",
  });
  // A name of its own: wrangler dev registers every Worker by name in a dev registry shared by all
  // wrangler processes, and a colleague's `wrangler dev` of the same Worker starting or stopping
  // would otherwise disturb this one (in our runs it cut the runtime off mid-request).
  const unique = `${name}-${root
    .slice(-6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x")}`;
  const toml = readFileSync(config, "utf8")
    .replace(/^main\s*=.*$/m, 'main = "worker.mjs"')
    .replace(/^name\s*=.*$/m, `name = "lattice-perf-${unique}"`);
  writeFileSync(join(dir, "wrangler.toml"), toml);
  return join(dir, "wrangler.toml");
}

async function wrangler(
  config: string,
  port: number,
  inspector: number,
  persist: string,
  extra: string[],
  logs: string[],
  onUserWorker: (url: string) => void,
): Promise<ChildProcess> {
  const args = ["dev", "-c", config, "--no-bundle", "--ip", "127.0.0.1", "--port", String(port)];
  // LATTICE_BENCH_LOG=<file>: every line of each process appended to <file>.api or <file>.apps, at
  // log level "log" (workerd's own errors, such as a connection reset, come at any level).
  const logFile = process.env.LATTICE_BENCH_LOG;
  // Debug when going direct: only debug output names the UserWorker's address.
  const logLevel =
    !VIA_PROXY || process.env.LATTICE_BENCH_VERBOSE === "debug"
      ? "debug"
      : process.env.LATTICE_BENCH_VERBOSE || logFile
        ? "log"
        : "warn";
  args.push(
    "--inspector-port",
    String(inspector),
    "--persist-to",
    persist,
    "--log-level",
    logLevel,
    ...extra,
  );
  // detached: the child leads its own process group, so stop() ends wrangler and its workerd together.
  // Wrangler's own entry run by this Node (the project's Node 22 under npm), not whatever is on PATH.
  const child = spawn(process.execPath, [join("node_modules", "wrangler", "bin", "wrangler.js"), ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // A dev registry of this run's own (see snapshot()).
      WRANGLER_REGISTRY_PATH: join(persist, "..", "registry"),
      // No interactive hotkeys UI in a benchmark's output.
      CI: "1",
    },
  });
  let head = ""; // the output's tail: the UserWorker's address may span chunks
  const keep = (chunk: Buffer) => {
    head = (head + chunk.toString()).slice(-4000);
    const found = USER_WORKER_URL.exec(head);
    if (found) onUserWorker(`http://${found[1]}:${found[2]}`);
    if (process.env.LATTICE_BENCH_VERBOSE) process.stderr.write(chunk);
    if (logFile) appendFileSync(`${logFile}.${config.split("/").at(-2)}`, chunk);
    logs.push(chunk.toString());
    if (logs.length > 200) logs.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  // Said in the log: a wrangler that exits mid-run is how a dropped connection looks from here.
  child.once("exit", (code, signal) =>
    keep(Buffer.from(`[bench] wrangler dev of ${config} exited: code ${code}, signal ${signal}\n`)),
  );
  return child;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signalGroup(child.pid!, "SIGKILL");
      resolve();
    }, 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    signalGroup(child.pid!, "SIGTERM");
  });
}

/** Signals the process group this benchmark created (negative pid), and no other process. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {}
}

/** A value the output names (the UserWorker's address), once it has. */
async function named(read: () => string | undefined, whose: string): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let value = read(); ; value = read()) {
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`wrangler dev never named ${whose} UserWorker`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(url: string, children: ChildProcess[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (children.some((c) => c.exitCode !== null)) throw new Error("wrangler dev exited during start-up");
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up within ${START_TIMEOUT_MS / 1000} s`);
}
