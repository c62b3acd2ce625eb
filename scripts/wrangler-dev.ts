/**
 * One `wrangler dev` for the scripts, benches and end-to-end tests: through `npm exec` (the project's
 * wrangler on the project's Node 22), on a free port of loopback with its own inspector port and
 * `--persist-to` state, offline (no metrics, no cf fetch), in a process group of its own so stopping
 * it stops its workerd too. Node only, not part of the Worker.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, waitUntilUp } from "./lib.ts";

export interface WranglerDev {
  url: string;
  child: ChildProcess;
}

export interface WranglerOptions {
  config: string;
  /** Its log is `<logDir>/<name>.log`. */
  name: string;
  logDir: string | null;
  persistTo: string;
  /** Extra arguments (`--var K:V`…), given the port it will listen on. */
  vars?: (port: number) => string[];
  /** Seconds to wait for /healthz. */
  upWithin?: number;
}

/**
 * Starts one and waits until it answers /healthz. A port picked free can be taken before wrangler
 * binds it (other processes pick ports too): one that exits before it is up is started again on
 * fresh ports, at most three times.
 */
export async function startWranglerDev(o: WranglerOptions): Promise<WranglerDev> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const log = o.logDir ? openSync(join(o.logDir, `${o.name}.log`), "a") : "ignore";
    const args = [
      "exec",
      "--",
      "wrangler",
      "dev",
      "-c",
      o.config,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
    ];
    args.push(
      "--inspector-port",
      String(await freePort()),
      "--persist-to",
      o.persistTo,
      ...(o.vars?.(port) ?? []),
    );
    const child = spawn("npm", args, {
      stdio: ["ignore", log, log],
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    child.on("error", (e) => console.error(`could not start wrangler (${o.name}): ${e.message}`));
    const exited = new Promise<"exited">((resolve) => child.once("exit", () => resolve("exited")));
    const url = `http://127.0.0.1:${port}`;
    const seconds = o.upWithin ?? 120;
    const up = waitUntilUp(`${url}/healthz`, seconds).then((ok) => (ok ? "up" : "timeout"));
    const outcome = await Promise.race([up, exited]);
    if (outcome === "up") return { url, child };
    await stopGroup(child);
    if (outcome === "timeout") throw new Error(`${url} did not come up within ${seconds} s`);
    if (attempt === 3) throw new Error(`wrangler dev (${o.name}) exited before it was up, three times`);
  }
}

/**
 * Stops the whole process group (wrangler and the workerd it started, nothing else) and waits for
 * it to exit, so its state directory is no longer written when it is removed; SIGKILL after 5 s.
 */
export async function stopGroup(child: ChildProcess): Promise<void> {
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

/** The last lines of each named log, for an error that says why a stack did not come up. */
export function logTails(dir: string, names: string[]): string {
  return names
    .map((n) => {
      const f = join(dir, `${n}.log`);
      return existsSync(f) ? `--- ${n}\n${readFileSync(f, "utf8").slice(-2000)}` : "";
    })
    .join("\n");
}
