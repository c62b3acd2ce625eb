/**
 * The demo MCP servers' routes, mounted by the demo Worker before its app-call route:
 *
 *   GET|POST|DELETE /w/{world}/mcp/{app}                  MCP streamable HTTP (bearer DEMO_MCP_TOKEN)
 *   GET  /w/{world}/_demo/mcp/{app}/state                 the server's state in this world (operator)
 *   POST /w/{world}/_demo/mcp/shadynotes/rugpull          {"on"?: boolean}: switch find_notes' definition
 *   PUT  /w/{world}/_demo/mcp/mcpmisbehave/state          {"result"?, "delayMs"?}: what its tools answer next, when
 *
 * Each request gets a fresh server (the SDK's per-request handler) built from the world's state.
 */
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { parseJson } from "../protocol.ts";
import type { DemoWorld } from "../world.ts";
import { misbehaveMcpServer, seedMisbehaveMcp } from "./mcpmisbehave.ts";
import { DEMO_MCP_TOKEN, type DemoMcpAppName, isDemoMcpAppName } from "./names.ts";
import { notesServer, seedNotes } from "./notes.ts";
import type { Era } from "./shady-lure.ts";
import { seedShady, shadyServer } from "./shadynotes.ts";
import { type BlobStore, jsonState } from "./state.ts";

interface Bindings {
  WORLDS: DurableObjectNamespace<DemoWorld>;
}
type Ctx = { env: Bindings; req: { param(name: "world"): string } };

const error = (code: string, message: string) => ({ error: { code, message } });

const store = (c: Ctx): BlobStore => c.env.WORLDS.getByName(c.req.param("world"));
const notesState = (c: Ctx) => jsonState(store(c), "mcp:notes", seedNotes);
const shadyState = (c: Ctx) => jsonState(store(c), "mcp:shadynotes", seedShady);
const misbehaveState = (c: Ctx) => jsonState(store(c), "mcp:mcpmisbehave", seedMisbehaveMcp);

async function serverFor(c: Ctx, app: DemoMcpAppName, era: Era): Promise<McpServer> {
  if (app === "notes") return notesServer(notesState(c));
  if (app === "mcpmisbehave") return misbehaveMcpServer(misbehaveState(c));
  const state = shadyState(c);
  return shadyServer(state, (await state.read()).rugPulled, era);
}

export const mcpRoutes = new Hono<{ Bindings: Bindings }>();

mcpRoutes.on(["GET", "POST", "DELETE"], "/w/:world/mcp/:app", async (c) => {
  const app = c.req.param("app");
  if (!isDemoMcpAppName(app))
    return c.json(error("not_found", `no MCP server named ${JSON.stringify(app)}`), 404);
  // A fixed demo token: the point is that Lattice sends the credential it was given, not secrecy.
  if (c.req.header("Authorization") !== `Bearer ${DEMO_MCP_TOKEN}`) {
    c.header("WWW-Authenticate", 'Bearer realm="lattice-demo-mcp"');
    return c.json(error("unauthorized", "send Authorization: Bearer <the demo MCP token>"), 401);
  }
  const handler = createMcpHandler(({ era }) => serverFor(c, app, era), {
    onerror: (err) => console.warn(`mcp ${app}: ${err.message}`),
  });
  return handler.fetch(c.req.raw);
});

mcpRoutes.get("/w/:world/_demo/mcp/:app/state", async (c) => {
  const app = c.req.param("app");
  if (!isDemoMcpAppName(app))
    return c.json(error("not_found", `no MCP server named ${JSON.stringify(app)}`), 404);
  const state = app === "notes" ? notesState(c) : app === "shadynotes" ? shadyState(c) : misbehaveState(c);
  return c.json(await state.read());
});

mcpRoutes.put("/w/:world/_demo/mcp/mcpmisbehave/state", async (c) => {
  const parsed = parseJson(await c.req.text());
  const body = parsed.ok && isObject(parsed.value) ? parsed.value : null;
  if (!body || !validDelay(body.delayMs)) {
    const expected = 'expected {"result"?: <a tools/call result>, "delayMs"?: 0–30000}';
    return c.json(error("bad_request", expected), 400);
  }
  const { result, delayMs } = body;
  await misbehaveState(c).update((s) => {
    s.result = result;
    s.delayMs = delayMs;
  });
  return c.json({ ok: true });
});

mcpRoutes.post("/w/:world/_demo/mcp/shadynotes/rugpull", async (c) => {
  const raw = await c.req.text();
  const parsed = raw.trim() === "" ? { ok: true as const, value: {} } : parseJson(raw);
  const body = parsed.ok ? parsed.value : null;
  const on = typeof body === "object" && body !== null && "on" in body ? body.on : true;
  if (!parsed.ok || typeof on !== "boolean") {
    return c.json(error("bad_request", 'expected {"on": true|false} or no body'), 400);
  }
  const rugPulled = await shadyState(c).update((s) => {
    s.rugPulled = on;
    return on;
  });
  return c.json({ ok: true, rugPulled });
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const validDelay = (ms: unknown): ms is number | undefined =>
  ms === undefined || (typeof ms === "number" && Number.isInteger(ms) && ms >= 0 && ms <= 30_000);
