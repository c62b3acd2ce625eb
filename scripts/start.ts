/**
 * npm start: the Lattice API and the demo apps under `wrangler dev`, side by side (one process each:
 * wrangler gives a port only to the first of several configs), then a seeded demo tenant.
 * API on PORT (default 8787), demo apps on APPS_PORT (default PORT + 1, or a free port when that one
 * is taken: the URL is printed and seeded). Offline, no model key needed. "running" is printed once
 * the demo works (seeded, its keys answering, its apps serving at APPS_PORT), not when /healthz does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { apiCall, apiPort, freePort, parseDevVars, portOr, waitUntilUp } from "./lib.ts";
import { demoProblems, seedDemo } from "./seed.ts";

const port = apiPort();
const appsPort = process.env.APPS_PORT ? Number(process.env.APPS_PORT) : await portOr(port + 1);
const api = `http://127.0.0.1:${port}`;
const apps = `http://127.0.0.1:${appsPort}`;

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
async function wrangler(config: string, listen: number): Promise<void> {
  // Each wrangler dev needs its own inspector port; the default 9229 would collide.
  const inspector = String(await freePort());
  const child = spawn(
    "wrangler",
    [
      "dev",
      "-c",
      config,
      "--ip",
      "127.0.0.1",
      "--port",
      String(listen),
      "--inspector-port",
      inspector,
      // One storage folder per process: two runtimes sharing one SQLite folder hit SQLITE_BUSY.
      "--persist-to",
      `.wrangler/state/${config.startsWith("examples") ? "apps" : "api"}`,
    ],
    {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  child.on("exit", (code) => {
    console.error(`wrangler (${config}) exited with ${code}`);
    shutdown(code ?? 1);
  });
  children.push(child);
}

function shutdown(code: number): never {
  for (const child of children) child.kill("SIGTERM");
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));

await wrangler("wrangler.toml", port);
await wrangler("examples/apps/wrangler.toml", appsPort);

await Promise.all([waitFor(`${api}/healthz`), waitFor(`${apps}/healthz`)]);
// wrangler's "Ready" lines above are not the demo: it is ready once seeded and checked.
console.log("\nSeeding and checking the demo tenant…");
const demo = await seedDemo({ api, apps, operatorSecret });
const problems = await demoProblems(demo);
if (problems.length) {
  console.error(`The demo does not work:\n  ${problems.join("\n  ")}
(removing .lattice/demo.json seeds a fresh demo tenant on the next start)`);
  shutdown(1);
}
// The console's user pages take a user token, minted here as a chat product's server would (the
// frontend key never reaches a browser); the fragment is never sent to a server.
const { token } = (await apiCall(api, demo.keys.frontend, "POST", "/v1/users/alex/tokens", {
  ttlSeconds: 3600,
})) as { token: string };
console.log(`
Lattice is running (offline; models are scripted until you configure a live one).
  API        ${api}   docs ${api}/docs   contract ${api}/openapi.json
  demo apps  ${apps}
  tenant     ${demo.tenantId}
  admin key      ${demo.keys.admin}
  developer key  ${demo.keys.developer}
  frontend key   ${demo.keys.frontend}
  apps       ${Object.keys(demo.appIds).join(", ")} (registered and approved)
  console    ${api}/console#token=${token}
             (confirm the demo user alex there; the token lasts an hour; admin and developer pages take those keys)
(also in .lattice/demo.json)
`);

async function waitFor(url: string): Promise<void> {
  if (await waitUntilUp(url)) return;
  console.error(`${url} did not come up`);
  shutdown(1);
}
