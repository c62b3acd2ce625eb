/**
 * The benchmark's own stack, like `npm start` but apart from the user's demo: the Lattice API and the
 * demo apps each under `wrangler dev` (workerd) on free ports, with their own inspector ports and
 * local state in a temporary directory, plus the obedient model server on loopback.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDevVars } from "../../scripts/lib.ts";
import { logTails, startWranglerDev, stopGroup } from "../../scripts/wrangler-dev.ts";
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
    const started = await startWranglerDev({
      config,
      name,
      logDir: dir,
      persistTo: join(dir, "state"),
      vars: () => vars,
    });
    children.push(started.child);
    return started.url;
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
    const [api, apps] = await Promise.all([
      wrangler("wrangler.toml", "api", [
        ...["--var", `LATTICE_KEY_SECRET:${hexSecret(32)}`],
        // The simulated users' polling is not what a rate limit is for; the bench measures the hub.
        ...["--var", "LATTICE_RATE_LIMIT:off"],
      ]),
      wrangler("examples/apps/wrangler.toml", "apps"),
    ]);
    return { api, apps, operatorSecret: secret, model, stop };
  } catch (e) {
    const logs = logTails(dir, ["api", "apps"]);
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs}`);
  }
}
