/**
 * npm start a second time with the demo apps elsewhere (another PORT, or PORT + 1 taken): the reused
 * demo tenant follows them. The demo apps are reached through a loopback proxy on a port of its own,
 * as if they listened there; the first is closed before the second seeding, as a stopped npm start's
 * apps port is. A demo query then runs against the new address, and npm start's readiness check agrees.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { demoProblems, seedDemo } from "../../scripts/seed.ts";
import { stack } from "./kit.ts";

// Hop-by-hop, or no longer true once fetch has read the body.
const DROPPED = new Set(["host", "connection", "transfer-encoding", "content-length", "content-encoding"]);

/** The demo apps at another port: every request passed on to `target`, its path and headers kept. */
async function appsAt(target: string): Promise<{ url: string; paths: string[]; server: Server }> {
  const paths: string[] = [];
  const server = createServer(async (req, res) => {
    paths.push(req.url ?? "");
    const headers = Object.entries(req.headers).flatMap(([k, v]) =>
      DROPPED.has(k) || v === undefined ? [] : [[k, String(v)] as [string, string]],
    );
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    try {
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => !DROPPED.has(k))));
      if (answer.body) Readable.fromWeb(answer.body as never).pipe(res);
      else res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("the proxy has no port");
  return { url: `http://127.0.0.1:${address.port}`, paths, server };
}

const closed = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

interface QueryView {
  status: string;
  error: { message: string } | null;
}

describe("npm start again with the demo apps at another port", () => {
  const dir = mkdtempSync(join(tmpdir(), "lattice-reseed-"));
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => (s.listening ? closed(s) : undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves the reused demo tenant's apps there: a demo query reaches them at the new address", async () => {
    // A demo tenant and world of this test's own: the stack's demo tenant and its apps' secrets stay.
    const { api, operatorSecret } = stack();
    const world = `reseed-${Date.now().toString(36)}`;
    const file = join(dir, `${world}.json`);
    const before = await appsAt(stack().apps);
    const after = await appsAt(stack().apps);
    servers.push(before.server, after.server);

    const first = await seedDemo({ api, apps: before.url, operatorSecret, file, world });
    await closed(before.server);
    // What npm start checks before it says "running" names the stale tenant's moved apps.
    const stale = await demoProblems({ ...first, apps: after.url }, world);
    const contacts = (base: string) => `${base}/w/${world}/contacts`;
    expect(stale).toContain(`contacts: calls ${contacts(before.url)}, not ${contacts(after.url)}`);
    const second = await seedDemo({ api, apps: after.url, operatorSecret, file, world });
    expect(second.tenantId).toBe(first.tenantId);
    expect(second.apps).toBe(after.url);

    const key = second.keys.frontend;
    const session = (await apiCall(api, key, "POST", "/v1/sessions", { userId: "alex" })) as { id: string };
    const asked = (await apiCall(api, key, "POST", `/v1/sessions/${session.id}/queries`, {
      text: "Who is my landlord?",
    })) as { id: string };
    const read = () =>
      apiCall(api, key, "GET", `/v1/sessions/${session.id}/queries/${asked.id}`) as Promise<QueryView>;
    await expect
      .poll(
        async () => {
          const view = await read();
          return view.status === "failed" ? `failed: ${view.error?.message}` : view.status;
        },
        { timeout: 45_000, interval: 250 },
      )
      .toBe("completed");
    expect(after.paths).toContain(`/w/${world}/contacts/lookup`);
    // Once followed, the check passes; a key that does not answer fails it.
    expect(await demoProblems(second, world)).toEqual([]);
    const refused = await demoProblems(
      { ...second, keys: { ...second.keys, frontend: "lk_unknown" } },
      world,
    );
    expect(refused).toEqual([expect.stringMatching(/^the frontend key: .*\(401\)/)]);
  }, 150_000);
});
