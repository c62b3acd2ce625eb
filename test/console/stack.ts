/**
 * Global setup of the browser tests: the Lattice API and the demo apps each under `wrangler dev`
 * (workerd) on free ports with throwaway state, as `npm start` runs them, and the demo tenant seeded.
 * The tests get the URLs and keys by `inject`; the stack is stopped after the run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort, waitUntilUp } from "../../scripts/lib.ts";
import { type Demo, seedDemo } from "../../scripts/seed.ts";

declare module "vitest" {
  export interface ProvidedContext {
    stack: { api: string; apps: string; demo: Demo };
  }
}

const hex = () => Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "lattice-console-"));
  const children: ChildProcess[] = [];
  const operatorSecret = hex();
  /**
   * One wrangler dev, up and answering /healthz. A port picked free can be taken before wrangler
   * binds it (other processes pick ports too): a wrangler that exits before it is up is started
   * again on fresh ports, at most three times.
   */
  const wrangler = async (config: string, name: string, vars: (port: number) => string[] = () => []) => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const log = openSync(join(dir, `${name}.log`), "a");
      // Through npm exec: the project's wrangler on the project's Node 22.
      const args = [
        "exec",
        "--",
        "wrangler",
        "dev",
        "-c",
        config,
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
      ];
      args.push("--inspector-port", String(await freePort()), "--persist-to", join(dir, name), ...vars(port));
      const child = spawn("npm", args, {
        stdio: ["ignore", log, log],
        detached: true,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      });
      children.push(child);
      const exited = new Promise<"exited">((resolve) => child.once("exit", () => resolve("exited")));
      const url = `http://127.0.0.1:${port}`;
      const up = waitUntilUp(`${url}/healthz`, 120).then((ok) => (ok ? "up" : "timeout"));
      const outcome = await Promise.race([up, exited]);
      if (outcome === "up") return url;
      await stopGroup(child);
      if (outcome === "timeout") throw new Error(`${url} did not come up within 120 s`);
      if (attempt === 3) throw new Error(`wrangler dev (${name}) exited before it was up, three times`);
    }
  };
  const stop = async () => {
    await Promise.all(children.map(stopGroup));
    if (process.env.CONSOLE_KEEP_LOGS) console.log(`console test logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  };
  try {
    // Secrets of this run only (--var wins over a developer's .dev.vars); consent links name this URL.
    const keySecret = hex();
    const [api, apps] = await Promise.all([
      wrangler("wrangler.toml", "api", (port) => [
        ...["--var", `LATTICE_OPERATOR_SECRET:${operatorSecret}`],
        ...["--var", `LATTICE_KEY_SECRET:${keySecret}`],
        ...["--var", "LATTICE_MODE:dev", "--var", `LATTICE_PUBLIC_URL:http://127.0.0.1:${port}`],
      ]),
      wrangler("examples/apps/wrangler.toml", "apps"),
    ]);
    const demo = await seedDemo({ api, apps, operatorSecret, file: null });
    project.provide("stack", { api, apps, demo });
    return stop;
  } catch (e) {
    const logs = ["api", "apps"].map((n) => {
      const f = join(dir, `${n}.log`);
      return existsSync(f) ? `--- ${n}\n${readFileSync(f, "utf8").slice(-2000)}` : "";
    });
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs.join("\n")}`);
  }
}

/** Stops wrangler's process group (wrangler and its workerd) and waits for it; SIGKILL after 5 s. */
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
