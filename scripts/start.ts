/**
 * npm start: the Lattice API and the demo apps under `wrangler dev`, side by side (one process each:
 * wrangler gives a port only to the first of several configs), then a seeded demo tenant.
 * API on PORT (default 8787), demo apps on APPS_PORT (default PORT + 1, or a free port when that one
 * is taken: the URL is printed and seeded). Offline, no model key needed. "running" is printed once
 * the demo works (seeded, its keys answering, its apps serving at APPS_PORT), not when /healthz does.
 * HOST (default 127.0.0.1) is the address the API listens on: 0.0.0.0 for a chat frontend in a
 * container (docs/integrations/open-webui.md); the demo apps stay on loopback, where only the API
 * calls them. LATTICE_PUBLIC_URL, when set, is the origin consent links and the console link name.
 * Stopped by Ctrl-C or `kill` of npm's pid or this one's (start-lifetime.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { apiCall, apiPort, freePort, parseDevVars, portOr, waitUntilUp } from "./lib.ts";
import { demoProblems, seedDemo } from "./seed.ts";
import { portTaken, stopWithParent } from "./start-lifetime.ts";
import { stopGroup } from "./wrangler-dev.ts";

const port = apiPort();
const host = process.env.HOST || "127.0.0.1";
const publicUrl = process.env.LATTICE_PUBLIC_URL?.replace(/\/+$/, "");
if (publicUrl !== undefined && !/^https?:\/\/[^/]+$/.test(publicUrl)) {
  console.error(`LATTICE_PUBLIC_URL must be an origin such as http://localhost:${port}, not "${publicUrl}"`);
  process.exit(1);
}
const PID_FILE = ".lattice/start.pid";
const taken = await portTaken(host, port, PID_FILE);
if (taken) {
  console.error(taken);
  process.exit(1);
}
const appsPort = process.env.APPS_PORT ? Number(process.env.APPS_PORT) : await portOr(port + 1);
// This script reaches the API where it listens: loopback when it listens on every address.
const api = `http://${["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host}:${port}`;
const apps = `http://127.0.0.1:${appsPort}`;
// What a person's browser opens (the console link): the public URL when one is set.
const shown = publicUrl ?? api;

// Local secrets live in .dev.vars (git-ignored), written once; wrangler dev reads it as Worker secrets.
const hex = () => Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");
if (!existsSync(".dev.vars")) {
  writeFileSync(".dev.vars", `LATTICE_OPERATOR_SECRET=${hex()}\nLATTICE_MODE=dev\n`, { mode: 0o600 });
}
// Older files predate sealed model keys: add the sealing secret once.
if (!parseDevVars(readFileSync(".dev.vars", "utf8")).LATTICE_KEY_SECRET) {
  writeFileSync(
    ".dev.vars",
    `${readFileSync(".dev.vars", "utf8").trimEnd()}\nLATTICE_KEY_SECRET=${hex()}\n`,
    {
      mode: 0o600,
    },
  );
}
const operatorSecret = parseDevVars(readFileSync(".dev.vars", "utf8")).LATTICE_OPERATOR_SECRET;
if (!operatorSecret) throw new Error(".dev.vars has no LATTICE_OPERATOR_SECRET");

const children: ChildProcess[] = [];
async function wrangler(config: string, listen: number, ip: string, vars: string[] = []): Promise<void> {
  // Each wrangler dev needs its own inspector port; the default 9229 would collide.
  const inspector = String(await freePort());
  const child = spawn(
    "wrangler",
    [
      "dev",
      "-c",
      config,
      "--ip",
      ip,
      "--port",
      String(listen),
      "--inspector-port",
      inspector,
      // One storage folder per process: two runtimes sharing one SQLite folder hit SQLITE_BUSY.
      "--persist-to",
      `.wrangler/state/${config.startsWith("examples") ? "apps" : "api"}`,
      ...vars,
    ],
    {
      stdio: ["ignore", "inherit", "inherit"],
      // A process group of its own, so stopping it stops the workerd it started too (stopGroup).
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  child.on("exit", (code) => {
    if (stopping) return;
    console.error(`wrangler (${config}) exited with ${code}`);
    void shutdown(code ?? 1);
  });
  children.push(child);
}

let stopping = false;
async function shutdown(code: number): Promise<never> {
  stopping = true;
  // Waits for each group to exit (SIGKILL after 5 s), so the ports are free once this process ends.
  await Promise.all(children.map(stopGroup));
  rmSync(PID_FILE, { force: true });
  process.exit(code);
}
stopWithParent((reason) => {
  console.error(`\nStopping Lattice (${reason})…`);
  void shutdown(0);
});
mkdirSync(".lattice", { recursive: true });
writeFileSync(PID_FILE, `${process.pid}\n`);

await wrangler("wrangler.toml", port, host, publicUrl ? ["--var", `LATTICE_PUBLIC_URL:${publicUrl}`] : []);
await wrangler("examples/apps/wrangler.toml", appsPort, "127.0.0.1");

await Promise.all([waitFor(`${api}/healthz`), waitFor(`${apps}/healthz`)]);
// wrangler's "Ready" lines above are not the demo: it is ready once seeded and checked.
console.log("\nSeeding and checking the demo tenant…");
const demo = await seedDemo({ api, apps, operatorSecret });
const problems = await demoProblems(demo);
if (problems.length) {
  console.error(`The demo does not work:\n  ${problems.join("\n  ")}
(removing .lattice/demo.json seeds a fresh demo tenant on the next start)`);
  await shutdown(1);
}
// The console's user pages take a user token, minted here as a chat product's server would (the
// frontend key never reaches a browser); the fragment is never sent to a server.
const { token } = (await apiCall(api, demo.keys.frontend, "POST", "/v1/users/alex/tokens", {
  ttlSeconds: 3600,
})) as { token: string };
console.log(`
Lattice is running (offline; models are scripted until you configure a live one).
  API        ${shown}   docs ${shown}/docs   contract ${shown}/openapi.json${host === "127.0.0.1" ? "" : `\n  listening  ${host}:${port}`}
  demo apps  ${apps}
  tenant     ${demo.tenantId}
  admin key      ${demo.keys.admin}
  developer key  ${demo.keys.developer}
  frontend key   ${demo.keys.frontend}
  apps       ${Object.keys(demo.appIds).join(", ")} (registered and approved)
  console    ${shown}/console#token=${token}
             (confirm the demo user alex there; the token lasts an hour; admin and developer pages take those keys)
(also in .lattice/demo.json)
Stop it with Ctrl-C, or \`kill ${process.pid}\` (or npm's pid).
`);

async function waitFor(url: string): Promise<void> {
  if (await waitUntilUp(url)) return;
  console.error(`${url} did not come up`);
  await shutdown(1);
}
