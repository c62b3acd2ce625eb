import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { randomId } from "../../objects/crypto.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import type { Rpc } from "../../objects/rpc.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, conflict, invalid, notFound, quotaExceeded } from "../errors.ts";
import { hubOf, openHub } from "../hub.ts";
import { ownUser, requireRole } from "../middleware/auth/index.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { QuerySchema, SessionSchema } from "../schemas/sessions.ts";
import { requireKnownRoles } from "../tenant.ts";
import { validationHook } from "../validation.ts";

const security = [{ bearer: [] }];
export const SessionParam = z.object({ sid: z.string().regex(/^ses_[a-f0-9]{32}$/, "a session id") });
const QueryParam = SessionParam.extend({ qid: z.string().min(1).max(64) });

const create = createRoute({
  method: "post",
  path: "/",
  tags: ["frontend"],
  summary: "Open a session for a user (private: no prior context, nothing persisted)",
  security,
  request: jsonBody(
    z
      .object({
        userId: UserIdSchema,
        private: z.boolean().default(false),
        roles: z.array(z.string().min(1).max(64)).max(16).optional().openapi({
          description: "The user's roles in the tenant policy (the frontend names them, as it names userId)",
        }),
      })
      .strict()
      .openapi("NewSession"),
  ),
  responses: { 201: jsonResponse(SessionSchema, "The session"), ...authErrors },
});

const ask = createRoute({
  method: "post",
  path: "/{sid}/queries",
  tags: ["frontend"],
  summary: "Start a query (202). With Accept: text/event-stream the response streams its events",
  security,
  request: {
    params: SessionParam,
    headers: z.object({ "idempotency-key": z.string().min(1).max(200).optional() }),
    ...jsonBody(
      z
        .object({ text: z.string().trim().min(1).max(8000) })
        .strict()
        .openapi("NewQuery"),
    ),
  },
  responses: {
    202: jsonResponse(QuerySchema, "The query, planning"),
    ...authErrors,
    ...notFoundError,
    ...conflictError,
  },
});

const read = createRoute({
  method: "get",
  path: "/{sid}/queries/{qid}",
  tags: ["frontend"],
  summary: "A query: status, display items (redacted ones marked), plan, trace, consents, error",
  security,
  request: { params: QueryParam },
  responses: { 200: jsonResponse(QuerySchema, "The query"), ...authErrors, ...notFoundError },
});

const events = createRoute({
  method: "get",
  path: "/{sid}/events",
  tags: ["frontend"],
  summary: "Server-sent events of the session (resume with Last-Event-ID)",
  security,
  request: { params: SessionParam },
  responses: { 200: { description: "text/event-stream" }, ...authErrors, ...notFoundError },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));

export const sessionRoutes = base
  .openapi(create, async (c) => {
    const { userId, private: isPrivate, roles: asked } = c.req.valid("json");
    const user = c.var.principal.user;
    if (!ownUser(c, userId)) throw notFound("user");
    // A user token's roles bound the session's: none asked, the token's; others asked, refused. A
    // token issued without roles grants none: its sessions get the policy's default roles only.
    const granted = user ? (user.roles ?? []) : null;
    const roles = asked?.length || !granted?.length ? asked : granted;
    if (granted && roles?.some((r) => !granted.includes(r))) {
      throw new ApiError(403, "forbidden", "the user token does not grant these roles");
    }
    await requireKnownRoles(c, roles);
    const id = randomId("ses", 16);
    const session = await hubOf(c, id).open({
      id,
      tenantId: c.var.principal.tenantId,
      userId,
      private: isPrivate,
      ...(roles?.length && { roles }),
    });
    return c.json(session, 201);
  })
  .openapi(ask, async (c) => {
    const { sid } = c.req.valid("param");
    const hub = await openHub(c, sid);
    // A stream's place is taken before the query starts: a refused stream must not leave a query behind.
    const lease = c.req.header("Accept")?.includes("text/event-stream") ? await leaseStream(hub) : null;
    const started = await hub.startQuery(
      c.req.valid("json").text,
      c.req.valid("header")["idempotency-key"] ?? null,
    );
    if (!started.ok) {
      if (lease) await hub.closeStream(lease);
      if (started.code === "no_session") throw notFound("session");
      if (started.code === "invalid_options") throw invalid(started.message);
      if (started.code === "quota_exceeded") throw quotaExceeded(started.quota);
      throw conflict("this Idempotency-Key was used for a different query");
    }
    if (lease) return streamEvents(c, hub, lease, 0, started.query.id) as never;
    return c.json(started.query, 202);
  })
  .openapi(read, async (c) => {
    const { sid, qid } = c.req.valid("param");
    const query = await (await openHub(c, sid)).query(qid);
    if (!query) throw notFound("query");
    return c.json(query, 200);
  })
  .openapi(events, async (c) => {
    const hub = await openHub(c, c.req.valid("param").sid);
    const after = Number(c.req.header("Last-Event-ID") ?? "0");
    return streamEvents(c, hub, await leaseStream(hub), Number.isFinite(after) ? after : 0) as never;
  });

const POLL_MS = 150;
const MAX_STREAM_MS = 5 * 60_000;
const STOP_TYPES = new Set(["query_finished", "consent_requested"]);

/** Open event streams a session may hold at once (each polls its hub): more answer 429. */
export const MAX_STREAMS_PER_SESSION = 4;

/** One of the session's open-stream places, or 429 when all are taken. */
async function leaseStream(hub: Rpc<HubDO>): Promise<string> {
  const lease = await hub.openStream(MAX_STREAMS_PER_SESSION, MAX_STREAM_MS + 10_000);
  if (lease) return lease;
  const message = `at most ${MAX_STREAMS_PER_SESSION} open event streams per session`;
  throw new ApiError(429, "too_many_streams", message, undefined, undefined, { "Retry-After": "5" });
}

/**
 * Relays the hub's event log as SSE, on a lease taken before (freed when the stream ends). Polling
 * the hub keeps the stream correct across evictions (the log is durable); a client resumes with
 * Last-Event-ID. A query stream ends when the query finishes or waits for the user.
 */
function streamEvents(
  c: Parameters<typeof streamSSE>[0],
  hub: Rpc<HubDO>,
  lease: string,
  after: number,
  queryId?: string,
) {
  return streamSSE(c, async (stream) => {
    try {
      let seq = after;
      const deadline = Date.now() + MAX_STREAM_MS;
      while (!stream.aborted && Date.now() < deadline) {
        for (const event of await hub.events(seq, queryId)) {
          seq = event.seq;
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
          if (queryId && STOP_TYPES.has(event.type)) return;
        }
        await stream.sleep(POLL_MS);
      }
    } finally {
      await hub.closeStream(lease);
    }
  });
}
