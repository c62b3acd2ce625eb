/**
 * The demo apps Worker: stand-ins for third-party apps registered with Lattice, with real state
 * (one DemoWorld Durable Object per world), real HTTP, and signatures checked.
 *
 *   POST /w/{world}/{app}/{functionality}   an app call from Lattice (signed)
 *   GET  /w/{world}/_demo/state             the world's state and call log (operator route)
 *   POST /w/{world}/_demo/reset             back to the seed data (operator route)
 *   PUT  /w/{world}/_demo/secrets           {"<app>": "<secret>"}: the apps' signing secrets (operator route)
 *   PUT  /w/{world}/_demo/state/{app}       replace one app's state (operator route: scenario content)
 *   *    /w/{world}/mcp/{app}                the MCP demo servers, notes, shadynotes, mcpmisbehave (see mcp/routes.ts)
 *   GET  /healthz
 */
import { Hono } from "hono";
import { mcpRoutes } from "./mcp/routes.ts";
import { appByName } from "./registry.ts";
import type { DemoWorld } from "./world.ts";

export { DemoWorld } from "./world.ts";

export interface Env {
  WORLDS: DurableObjectNamespace<DemoWorld>;
}

const WORLD_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const MAX_SECRET_LENGTH = 1024;

const error = (code: string, message: string) => ({ error: { code, message } });

const app = new Hono<{ Bindings: Env }>();

app.get("/healthz", (c) => c.json({ ok: true }));

app.use("/w/:world/*", async (c, next) => {
  if (!WORLD_NAME.test(c.req.param("world"))) {
    return c.json(error("bad_world", "a world name is 1-128 letters, digits, '.', '_' or '-'"), 400);
  }
  await next();
});

const world = (c: { env: Env; req: { param(name: "world"): string } }) =>
  c.env.WORLDS.getByName(c.req.param("world"));

app.get("/w/:world/_demo/state", async (c) =>
  c.body(await world(c).stateJson(c.req.param("world")), 200, { "content-type": "application/json" }),
);

app.put("/w/:world/_demo/state/:app", async (c) => {
  const name = c.req.param("app");
  if (!appByName(name)) return c.json(error("unknown_app", `no app named ${JSON.stringify(name)}`), 400);
  const body: unknown = await c.req.json().catch(() => null);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return c.json(error("bad_request", "expected the app's state as a JSON object"), 400);
  }
  await world(c).setAppState(name, JSON.stringify(body));
  return c.json({ ok: true });
});

app.post("/w/:world/_demo/reset", async (c) => {
  await world(c).reset();
  return c.json({ ok: true });
});

app.put("/w/:world/_demo/secrets", async (c) => {
  const body: unknown = await c.req.json().catch(() => null);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return c.json(error("bad_request", 'expected a JSON object {"<app>": "<secret>"}'), 400);
  }
  const secrets: Record<string, string> = {};
  for (const [name, secret] of Object.entries(body)) {
    if (!appByName(name)) return c.json(error("unknown_app", `no app named ${JSON.stringify(name)}`), 400);
    if (typeof secret !== "string" || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) {
      return c.json(error("bad_request", `the secret for ${name} must be a non-empty string`), 400);
    }
    secrets[name] = secret;
  }
  return c.json({ ok: true, configured: await world(c).setSecrets(secrets) });
});

// Before the app-call route, which would otherwise take POST /w/{world}/mcp/{app}.
app.route("/", mcpRoutes);

app.post("/w/:world/:app/:functionality", async (c) => {
  const reply = await world(c).call({
    app: c.req.param("app"),
    functionality: c.req.param("functionality"),
    rawBody: await c.req.text(),
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    signature: c.req.header("X-Lattice-Signature") ?? null,
    idempotencyKey: c.req.header("X-Lattice-Idempotency-Key") ?? null,
    callId: c.req.header("X-Lattice-Call") ?? null,
  });
  // The delay runs here, not in the world, so a caller that gives up also ends the wait.
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.contentType } });
});

app.notFound((c) =>
  c.json(error("not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`), 404),
);
app.onError((err, c) => c.json(error("internal", err.message), 500));

export default app;
