/**
 * The benchmark's own stack, like `npm start` but apart from the user's demo: the Lattice API and the
 * demo apps each under `wrangler dev` (workerd) on free ports, with their own inspector ports and
 * local state in a temporary directory, plus the obedient model server on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, parseDevVars, waitUntilUp } from "../../scripts/lib.ts";
import { type ObedientServer, startObedient } from "../obedient/server.ts";
import { hexSecret } from "./plan-kit.ts";

export interface Stack {
  api: string;
  apps: string;
  operatorSecret: string;
  model: ObedientServer;
  stop(): Promise<void>;
}

/** `.dev.vars` as `npm start` writes it, if missing: the operator secret, and dev mode (loopback apps). */
function operatorSecret(): string {
  if (!existsSync(".dev.vars")) {
    const secret = hexSecret(32);
    writeFileSync(".dev.vars", `LATTICE_OPERATOR_SECRET=${secret}\nLATTICE_MODE=dev\n`, { mode: 0o600 });
  }
  const vars = parseDevVars(readFileSync(".dev.vars", "utf8"));
  if (!vars.LATTICE_OPERATOR_SECRET) throw new Error(".dev.vars has no LATTICE_OPERATOR_SECRET");
  if (vars.LATTICE_MODE !== "dev")
    throw new Error(".dev.vars must set LATTICE_MODE=dev (the apps run on loopback)");
  return vars.LATTICE_OPERATOR_SECRET;
}

export async function startStack(options: { latencyMs: number }): Promise<Stack> {
  const secret = operatorSecret();
  const dir = mkdtempSync(join(tmpdir(), "lattice-bench-"));
  const children: ChildProcess[] = [];
  const wrangler = async (config: string, name: string, vars: string[] = []): Promise<string> => {
    const port = await freePort();
    const log = openSync(join(dir, `${name}.log`), "a");
    // Through npm exec: the project's wrangler on the project's Node 22, however this script was started.
    const child = spawn(
      "npm",
      ["exec", "--", "wrangler", "dev", "-c", config, "--ip", "127.0.0.1", "--port", String(port)].concat([
        "--inspector-port",
        String(await freePort()),
        "--persist-to",
        join(dir, "state"),
        ...vars,
      ]),
      {
        stdio: ["ignore", log, log],
        detached: true,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      },
    );
    child.on("error", (e) => console.error(`could not start wrangler (${name}): ${e.message}`));
    children.push(child);
    return `http://127.0.0.1:${port}`;
  };
  const stop = async () => {
    await Promise.all(children.map(stopGroup));
    await model.close();
    // BENCH_KEEP_LOGS=1 keeps the wrangler logs and local state for a look after the run.
    if (process.env.BENCH_KEEP_LOGS) console.log(`wrangler logs and state kept in ${dir}`);
    // Retries: a workerd that just exited may still be closing its storage files.
    else rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  };
  const model = await startObedient(options);
  try {
    // The policy stores the obedient model's (dummy) API key, sealed under LATTICE_KEY_SECRET: a fresh
    // one per run (its state is temporary), so the bench needs no change to the user's .dev.vars.
    const api = await wrangler("wrangler.toml", "api", [
      ...["--var", `LATTICE_KEY_SECRET:${hexSecret(32)}`],
      // The simulated users' polling is not what a rate limit is for; the bench measures the hub.
      ...["--var", "LATTICE_RATE_LIMIT:off"],
    ]);
    const apps = await wrangler("examples/apps/wrangler.toml", "apps");
    await Promise.all([waitFor(`${api}/healthz`), waitFor(`${apps}/healthz`)]);
    return { api, apps, operatorSecret: secret, model, stop };
  } catch (e) {
    const logs = ["api", "apps"].map((n) => {
      const f = join(dir, `${n}.log`);
      return existsSync(f) ? `--- ${n}\n${readFileSync(f, "utf8").slice(-2000)}` : "";
    });
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs.join("\n")}`);
  }
}

async function waitFor(url: string, seconds = 120): Promise<void> {
  if (!(await waitUntilUp(url, seconds))) throw new Error(`${url} did not come up within ${seconds} s`);
}

/**
 * Stops the whole process group (wrangler and the workerd it started, nothing else) and waits for
 * it to exit, so its state directory is no longer written when it is removed; SIGKILL after 5 s.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {}
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}
