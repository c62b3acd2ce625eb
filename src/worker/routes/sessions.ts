import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { randomId } from "../../objects/crypto.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { AppPicksSchema } from "../../runtime/index.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, conflict, invalid, notFound, quotaExceeded } from "../errors.ts";
import { callerOf, hubOf, openHub } from "../hub.ts";
import { ownUser, requireRole } from "../middleware/auth/index.ts";
import { forwardedTrace } from "../middleware/trace/index.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { eventStreamResponse } from "../schemas/events.ts";
import { SessionParam, UserIdSchema } from "../schemas/ids.ts";
import { QuerySchema, SessionSchema } from "../schemas/sessions.ts";
import { requireKnownRoles } from "../tenant.ts";
import { validationHook } from "../validation.ts";

const security = [{ bearer: [] }];
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
        .object({
          text: z.string().trim().min(1).max(8000),
          apps: AppPicksSchema.optional().openapi({
            description:
              'The apps the user picked, by what a choice is about (the catalog entry; in apps mode the category) → an app\'s name, or several to compare (in apps mode each planned step runs on its own app if picked; an irreversible one needs its app picked alone), e.g. {"ride.book": "swiftride"}. Each must serve it (else 400). The only way a query picks an app in the user\'s place: a name in `text` is only text',
          }),
        })
        .strict()
        .openapi("NewQuery"),
    ),
  },
  responses: {
    200: eventStreamResponse("With Accept: text/event-stream, this query's events until it finishes or asks"),
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
  responses: {
    200: eventStreamResponse("The session's events (text/event-stream)"),
    ...authErrors,
    ...notFoundError,
  },
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
      throw new ApiError(403, "forbidden", { message: "the user token does not grant these roles" });
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
    const streaming = c.req.header("Accept")?.includes("text/event-stream") ?? false;
    // Without a stream, the hub checks the session and its user itself: one round trip, not two.
    const hub = streaming ? await openHub(c, sid) : hubOf(c, sid);
    // A stream's place is taken before the query starts: a refused stream must not leave a query behind.
    const lease = streaming ? await leaseStream(hub) : null;
    const { text, apps } = c.req.valid("json");
    const started = await freeingOnError(hub, lease, () =>
      hub.startQuery(
        text,
        c.req.valid("header")["idempotency-key"] ?? null,
        {},
        callerOf(c),
        apps,
        forwardedTrace(c),
      ),
    );
    if (!started.ok) {
      if (lease) await hub.closeStream(lease);
      if (started.code === "no_session") throw notFound("session");
      if (started.code === "invalid_options") throw invalid(started.message);
      if (started.code === "invalid_picks") {
        const details = started.details.map((p) => ({ field: `body.apps.${p.choice}`, message: p.message }));
        throw invalid("an app picked does not serve what it is picked for", details);
      }
      if (started.code === "quota_exceeded") throw quotaExceeded(started.details);
      throw conflict("this Idempotency-Key was used for a different query");
    }
    // No stream only if the hub was evicted since the lease and its places filled: the query runs.
    const stream = lease && (await streamEvents(hub, lease, 0, started.query.id));
    return stream ? (c.body(stream, 200, SSE_HEADERS) as never) : c.json(started.query, 202);
  })
  .openapi(read, async (c) => {
    const { sid, qid } = c.req.valid("param");
    const query = await (await openHub(c, sid)).query(qid);
    if (!query) throw notFound("query");
    // The hub types an event's `type` as a string; the contract names each type the hub writes.
    return c.json(query as never, 200);
  })
  .openapi(events, async (c) => {
    const hub = await openHub(c, c.req.valid("param").sid);
    const after = Number(c.req.header("Last-Event-ID") ?? "0");
    const stream = await streamEvents(hub, await leaseStream(hub), Number.isFinite(after) ? after : 0);
    if (!stream) throw tooManyStreams();
    return c.body(stream, 200, SSE_HEADERS) as never;
  });

const MAX_STREAM_MS = 5 * 60_000;
/** How long a relay the client left reads on for the hub's end before it lets go. */
const DRAIN_MS = 1_000;
const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" };

/** Open event streams a session may hold at once (the hub keeps each in memory): more answer 429. */
export const MAX_STREAMS_PER_SESSION = 4;

function tooManyStreams(): ApiError {
  const message = `at most ${MAX_STREAMS_PER_SESSION} open event streams per session`;
  return new ApiError(429, "too_many_streams", { message, headers: { "Retry-After": "5" } });
}

/** One of the session's open-stream places, or 429 when all are taken. */
async function leaseStream(hub: Rpc<HubDO>): Promise<string> {
  const lease = await hub.openStream(MAX_STREAMS_PER_SESSION, MAX_STREAM_MS + 10_000);
  if (lease) return lease;
  throw tooManyStreams();
}

/**
 * The hub's server-sent events on a lease taken before, as a response body: the hub replays what
 * the client missed (after Last-Event-ID) and pushes the rest as it is written; this only relays.
 * Null when the hub has no place for it (see `eventStream`).
 */
async function streamEvents(
  hub: Rpc<HubDO>,
  lease: string,
  after: number,
  queryId?: string,
): Promise<ReadableStream<Uint8Array> | null> {
  const opts = { after, max: MAX_STREAMS_PER_SESSION, maxMs: MAX_STREAM_MS, ...(queryId && { queryId }) };
  const body = await freeingOnError(hub, lease, () => hub.eventStream(lease, opts));
  return body && relay(body, () => hub.closeStream(lease));
}

/** A call after a lease was taken: if it throws, the place is freed before the error goes on. */
async function freeingOnError<T>(hub: Rpc<HubDO>, lease: string | null, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (lease) await hub.closeStream(lease).catch(() => {});
    throw error;
  }
}

/**
 * The hub's stream, ending cleanly where the hub's breaks off (evicted, restarted): the client
 * reconnects with Last-Event-ID as after any end. A client going away frees the lease at once: the
 * hub ends its side (a cancel would reach the hub only at its next write); only if the hub cannot
 * be reached is our side cancelled.
 */
function relay(body: ReadableStream<Uint8Array>, free: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      try {
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      } catch {} // the client went away while this read was waiting
    },
    cancel: async (reason) => {
      await free().catch(() => {});
      // The hub has ended its side: read on to that end (briefly), so the pipe closes rather than
      // being aborted under the hub's last write.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(resolve, DRAIN_MS, null)));
      for (;;) {
        const next = await Promise.race([reader.read().catch(() => ({ done: true as const })), timeout]);
        if (!next || next.done) break;
      }
      clearTimeout(timer);
      await reader.cancel(reason).catch(() => {});
    },
  });
}
