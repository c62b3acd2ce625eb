/**
 * The MCP reference server (`@modelcontextprotocol/server-everything`, from npm) on a free loopback
 * port, for a console test file that registers it as an app: started before the file's tests, stopped
 * after them. Its process group is its own, so stopping it stops the server it runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "../../scripts/lib.ts";

/** The server's MCP URL, filled in by beforeAll: read it inside tests only. */
export function useServerEverything(): { url: string } {
  const server = { url: "" };
  let child: ChildProcess | null = null;
  beforeAll(async () => {
    const port = await freePort();
    child = spawn(
      "node",
      ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "streamableHttp"],
      { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "ignore"], detached: true },
    );
    server.url = `http://127.0.0.1:${port}/mcp`;
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        await fetch(server.url, { signal: AbortSignal.timeout(1000) });
        return;
      } catch {
        if (Date.now() > until) throw new Error("server-everything did not start");
        await sleep(200);
      }
    }
  });
  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  });
  return server;
}
