/**
 * `npm start` as the chat-frontend recipes run it (docs/integrations/open-webui.md), checked end to
 * end without Docker: a slow check (a minute or two), run by hand as root, not part of `npm test`.
 *
 *   sudo node scripts/start-check.ts
 *
 * 1. Starts `npm start` with HOST=0.0.0.0 and LATTICE_PUBLIC_URL=http://localhost:<port>, on free
 *    ports, with this checkout's .wrangler state and .lattice/demo.json.
 * 2. From another network namespace joined to this one by a veth pair, as a container reaches its
 *    host through the bridge (host.docker.internal), sends a chat turn with the headers Open WebUI
 *    forwards (X-OpenWebUI-User-Id, -Name, -Email, -Role, X-OpenWebUI-Chat-Id) and the demo query
 *    that asks a consent; the link in the answer must name LATTICE_PUBLIC_URL, not the address the
 *    frontend called, and must open from here (the person's browser side) with its token alone.
 *    Control: the same namespace cannot reach the demo apps, which listen on loopback only (what
 *    the API did before HOST).
 * 3. Sends SIGTERM to npm's pid (npm → sh → node) and checks both ports are free within 10 s.
 *
 * `--stop-only` does 1 (on loopback) and 3 alone, with no namespace (no root needed).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { freePort } from "./lib.ts";

const NS = `lat${process.pid}`;
const HOST_SIDE = "10.231.44.1";
const NS_SIDE = "10.231.44.2";
const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] }).toString();

function fail(message: string): never {
  console.error(`FAIL: ${message}`);
  cleanup();
  process.exit(1);
}

let npm: ReturnType<typeof spawn> | undefined;
function cleanup(): void {
  try {
    ip("netns", "del", NS);
  } catch {}
  try {
    ip("link", "del", `v${NS}`);
  } catch {}
  if (npm?.pid && npm.exitCode === null) {
    try {
      process.kill(npm.pid, "SIGKILL");
    } catch {}
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/** Runs `code` (an ES module body) with this Node inside the namespace; its stdout, trimmed. */
function inNamespace(code: string): string {
  try {
    return run(code);
  } catch {
    fail("the namespace could not run its request (its error is above)");
  }
}
function run(code: string): string {
  return execFileSync("ip", ["netns", "exec", NS, process.execPath, "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 90_000,
  })
    .toString()
    .trim();
}

const stopOnly = process.argv.includes("--stop-only");
// A namespace like a container's: its own interfaces, the host reached at HOST_SIDE only.
if (!stopOnly) ip("netns", "add", NS);
if (!stopOnly) {
  ip("link", "add", `v${NS}`, "type", "veth", "peer", "name", `p${NS}`);
  ip("link", "set", `p${NS}`, "netns", NS);
  ip("addr", "add", `${HOST_SIDE}/30`, "dev", `v${NS}`);
  ip("link", "set", `v${NS}`, "up");
  ip("netns", "exec", NS, "ip", "addr", "add", `${NS_SIDE}/30`, "dev", `p${NS}`);
  ip("netns", "exec", NS, "ip", "link", "set", `p${NS}`, "up");
  ip("netns", "exec", NS, "ip", "link", "set", "lo", "up");
}
if (!stopOnly) console.log(`namespace ${NS}: ${NS_SIDE}, reaching this host at ${HOST_SIDE}`);

const port = await freePort();
const appsPort = await freePort();
const publicUrl = `http://localhost:${port}`;
npm = spawn("npm", ["start"], {
  env: {
    ...process.env,
    HOST: stopOnly ? "127.0.0.1" : "0.0.0.0",
    PORT: String(port),
    APPS_PORT: String(appsPort),
    LATTICE_PUBLIC_URL: publicUrl,
  },
  stdio: ["ignore", "pipe", "pipe"],
});
let out = "";
npm.stdout?.on("data", (d: Buffer) => {
  out += d.toString();
});
npm.stderr?.on("data", (d: Buffer) => {
  out += d.toString();
});
const deadline = Date.now() + 240_000;
while (!out.includes("Lattice is running")) {
  if (npm.exitCode !== null) fail(`npm start exited (${npm.exitCode}):\n${out.slice(-3000)}`);
  if (Date.now() > deadline) fail(`npm start was not running within 240 s:\n${out.slice(-3000)}`);
  await new Promise((r) => setTimeout(r, 500));
}
console.log(
  `npm start (pid ${npm.pid}) is running: API on ${stopOnly ? "127.0.0.1" : "0.0.0.0"}:${port}, apps on 127.0.0.1:${appsPort}`,
);
if (!stopOnly) await turnFromNamespace();

async function turnFromNamespace(): Promise<void> {
  const demo = JSON.parse(readFileSync(".lattice/demo.json", "utf8")) as { keys: { frontend: string } };

  // The turn, from the namespace, as Open WebUI sends it (its utils/headers.py names these headers).
  const headers = {
    Authorization: `Bearer ${demo.keys.frontend}`,
    "Content-Type": "application/json",
    "X-OpenWebUI-User-Name": "Dana Example",
    "X-OpenWebUI-User-Id": "3f0c1a2b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
    "X-OpenWebUI-User-Email": "dana@example.com",
    "X-OpenWebUI-User-Role": "user",
    "X-OpenWebUI-Chat-Id": `chat-${process.pid}`,
  };
  const body = {
    model: "lattice",
    messages: [{ role: "user", content: "Email the total of this month's invoices to my accountant" }],
  };
  const answer = JSON.parse(
    inNamespace(`
const res = await fetch("http://${HOST_SIDE}:${port}/v1/openai/chat/completions", {
  method: "POST", headers: ${JSON.stringify(headers)}, body: ${JSON.stringify(JSON.stringify(body))},
});
console.log(JSON.stringify({ status: res.status, body: await res.json() }));`),
  ) as {
    status: number;
    body: { choices: Array<{ message: { content: string } }>; lattice?: { status: string } };
  };
  if (answer.status !== 200)
    fail(`the turn from the namespace answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const content = answer.body.choices[0]?.message.content ?? "";
  console.log(`turn from ${NS_SIDE}: 200, status ${answer.body.lattice?.status}`);
  const link = /(https?:\/\/[^\s()<>\]]+\/console\/sessions\/[^\s()<>\]#]+#link=[A-Za-z0-9._~-]+)/.exec(
    content,
  )?.[1];
  if (!link) fail(`no consent link in the answer:\n${content}`);
  if (!link.startsWith(`${publicUrl}/console/sessions/`))
    fail(`the link does not name ${publicUrl}: ${link}`);
  if (link.includes(HOST_SIDE)) fail(`the link names the address the frontend called: ${link}`);
  console.log(`consent link names LATTICE_PUBLIC_URL: ${link.slice(0, 90)}…`);

  // The person's side: the page opens, and the link's token alone reads that consent.
  const page = await fetch(link.split("#")[0]!);
  if (page.status !== 200) fail(`the consent page answered ${page.status}`);
  const [, sid, cid] = /\/console\/sessions\/([^/]+)\/consents\/([^/#]+)/.exec(link)!;
  const token = link.split("#link=")[1]!;
  const consent = await fetch(`${publicUrl}/v1/sessions/${sid}/consents/${cid}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (consent.status !== 200) fail(`the consent read with the link's token answered ${consent.status}`);
  console.log(`from this host: the page ${page.status}, the consent by the link's token ${consent.status}`);

  // Control: a port bound to loopback (the demo apps; the API before HOST) is out of the namespace's reach.
  const control = inNamespace(`
try { await fetch("http://${HOST_SIDE}:${appsPort}/healthz", { signal: AbortSignal.timeout(3000) }); console.log("reached"); }
catch { console.log("unreachable"); }`);
  if (control !== "unreachable") fail(`the namespace reached the loopback-bound apps port (${control})`);
  console.log(`control: 127.0.0.1:${appsPort} (loopback only) is unreachable from ${NS_SIDE}`);
}

// Stopping: SIGTERM to npm's own pid, as `kill <npm pid>` does.
// start.ts writes its pid here (before HOST and the stop on npm's end, it wrote none).
const startPid = existsSync(".lattice/start.pid") ? Number(readFileSync(".lattice/start.pid", "utf8")) : 0;
process.kill(npm.pid!, "SIGTERM");
const killedAt = Date.now();
let free = false;
while (Date.now() - killedAt < 10_000) {
  if ((await portFree(port)) && (await portFree(appsPort))) {
    free = true;
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
if (!free) fail(`ports ${port} and ${appsPort} still taken 10 s after SIGTERM to npm (pid ${npm.pid})`);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
while (startPid > 0 && alive(startPid) && Date.now() - killedAt < 10_000)
  await new Promise((r) => setTimeout(r, 100));
const startAlive = startPid > 0 && alive(startPid);
if (startAlive) fail(`scripts/start.ts (pid ${startPid}) still runs after the ports were freed`);
console.log(
  `SIGTERM to npm (pid ${npm.pid}): both ports free and start.ts gone in ${Date.now() - killedAt} ms`,
);
cleanup();
console.log("OK");
