/**
 * Global setup of the browser tests: the Lattice API and the demo apps each under `wrangler dev`
 * (workerd) on free ports with throwaway state, as `npm start` runs them, and the demo tenant seeded.
 * The tests get the URLs and keys by `inject`; the stack is stopped after the run.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { type Demo, seedDemo } from "../../scripts/seed.ts";
import { logTails, startWranglerDev, stopGroup } from "../../scripts/wrangler-dev.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** operatorSecret: for a test that seeds a demo tenant of its own (demo-reseed.test.ts). */
    stack: { api: string; apps: string; demo: Demo; operatorSecret: string };
  }
}

const hex = () => Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "lattice-console-"));
  const children: ChildProcess[] = [];
  const operatorSecret = hex();
  const wrangler = async (config: string, name: string, vars?: (port: number) => string[]) => {
    const started = await startWranglerDev({ config, name, logDir: dir, persistTo: join(dir, name), vars });
    children.push(started.child);
    return started.url;
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
    project.provide("stack", { api, apps, demo, operatorSecret });
    return stop;
  } catch (e) {
    const logs = logTails(dir, ["api", "apps"]);
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs}`);
  }
}
