import { Hono } from "hono";
import { randomId } from "../../objects/crypto.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { hubOf } from "../hub.ts";
import { requireRole } from "../middleware/auth/index.ts";
import {
  ChatBody,
  chunks,
  completion,
  lastUserText,
  latticeField,
  MODELS,
  type ModelId,
  oaiError,
  oaiErrorBody,
  plainTitle,
  renderQuery,
} from "../openai/render.ts";
import { requireKnownRoles } from "../tenant.ts";
import { SessionParam } from "./sessions.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

/** How long one chat turn waits for its query to finish or ask the user; past it, the turn says so. */
export const TURN_TIMEOUT_MS = 60_000;
const POLL_MS = 25;
const STOPPED = new Set(["completed", "failed", "rejected", "awaiting_consent"]);
const SESSION_HEADER = "X-Lattice-Session";

const base = new Hono<AppEnv>();
base.use(requireRole("frontend"));
// Mounted with .route(), a sub-app's own onError wraps its handlers and middleware: every error here,
// auth included, answers in OpenAI's shape (clients of this endpoint parse no other).
base.onError((err, c) => {
  const apiError = err instanceof ApiError ? err : null;
  if (!apiError) console.error("unhandled error", err);
  const shown = apiError ?? new ApiError(500, "internal_error", "internal error");
  return c.json(oaiErrorBody(shown), shown.status, shown.headers);
});

export const openaiRoutes = base
  .get("/models", (c) => {
    const created = Math.floor(Date.UTC(2026, 0, 1) / 1000);
    const data = MODELS.map((id) => ({ id, object: "model", created, owned_by: "lattice" }));
    return c.json({ object: "list", data });
  })
  .post("/chat/completions", async (c) => {
    const body = await parseBody(c.req.raw);
    const model = body.model as ModelId;
    const text = lastUserText(body);
    const user = callerUser(c, body.user);
    const stream = body.stream === true;
    const includeUsage = body.stream_options?.include_usage === true;

    if (model === "lattice-plain") {
      // Never a hub, planner or app: a frontend's background completion gets a deterministic title.
      const id = randomId("chatcmpl", 12);
      const content = plainTitle(text);
      if (!stream) return c.json(completion(id, model, content));
      return sse(chunks(id, model, includeUsage, async () => ({ content })));
    }

    const { sid, hub } = await sessionFor(c, user, c.req.header(SESSION_HEADER));
    const started = await hub.startQuery(text, null);
    if (!started.ok) {
      if (started.code === "no_session") throw oaiError(404, "session_not_found", "session not found");
      if (started.code === "quota_exceeded") {
        throw new ApiError(429, "quota_exceeded", started.message, { param: null }, undefined, {
          "Retry-After": String(started.quota.retryAfterSeconds),
        });
      }
      throw oaiError(400, started.code, started.message);
    }
    const qid = started.query.id;
    const id = `chatcmpl-${qid}`;
    // Always named, so a client that opened a session this turn can send it on the next.
    const headers = { [SESSION_HEADER]: sid };
    const answer = async () => {
      const query = await settle(hub, qid);
      return { content: renderQuery(query, sid), lattice: latticeField(query, sid) };
    };
    if (stream) return sse(chunks(id, model, includeUsage, answer), headers);
    const { content, lattice } = await answer();
    return c.json(completion(id, model, content, lattice), 200, headers);
  });

async function parseBody(request: Request): Promise<ChatBody> {
  let raw: unknown;
  try {
    raw = JSON.parse(await request.text());
  } catch {
    throw oaiError(400, "invalid_json", "the request body is not valid JSON");
  }
  const parsed = ChatBody.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.map(String).join(".") || null;
    throw oaiError(
      400,
      "invalid_request",
      `${param ?? "body"}: ${issue?.message ?? "invalid"}`,
      param ?? undefined,
    );
  }
  if (!(MODELS as readonly string[]).includes(parsed.data.model)) {
    const known = MODELS.join(", ");
    throw oaiError(
      400,
      "model_not_found",
      `unknown model ${parsed.data.model}; use one of ${known}`,
      "model",
    );
  }
  return parsed.data;
}

/** The user the turn is for: the body's `user` with a frontend key; a user token's own user. */
function callerUser(c: Ctx, given: string | undefined): string {
  const token = c.var.principal.user;
  if (token) {
    if (given !== undefined && given !== token.userId) {
      throw oaiError(400, "user_mismatch", "user does not match the user token", "user");
    }
    return token.userId;
  }
  if (given === undefined)
    throw oaiError(400, "user_required", "user is required with a frontend key", "user");
  return given;
}

/** The named session if it is this user's (else 404, as if absent), or a new one opened for them. */
async function sessionFor(
  c: Ctx,
  userId: string,
  header: string | undefined,
): Promise<{ sid: string; hub: Rpc<HubDO> }> {
  if (header !== undefined) {
    const notFound = oaiError(404, "session_not_found", "session not found", SESSION_HEADER);
    if (!SessionParam.safeParse({ sid: header }).success) throw notFound;
    const hub = hubOf(c, header);
    const session = await hub.session();
    if (!session || session.userId !== userId) throw notFound;
    return { sid: header, hub };
  }
  // As POST /v1/sessions does without asked roles: a user token's roles, else the policy's defaults.
  const roles = c.var.principal.user?.roles ?? [];
  await requireKnownRoles(c, roles.length ? roles : undefined);
  const sid = randomId("ses", 16);
  const hub = hubOf(c, sid);
  await hub.open({
    id: sid,
    tenantId: c.var.principal.tenantId,
    userId,
    private: false,
    ...(roles.length && { roles }),
  });
  return { sid, hub };
}

/** Polls the hub until the query stops (finished, or asking the user), at most TURN_TIMEOUT_MS. */
async function settle(hub: Rpc<HubDO>, qid: string): Promise<QueryView> {
  const deadline = Date.now() + TURN_TIMEOUT_MS;
  for (;;) {
    const query = await hub.query(qid);
    if (!query) throw oaiError(404, "query_not_found", "query not found");
    if (STOPPED.has(query.status) || Date.now() > deadline) return query;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function sse(frames: AsyncGenerator<string>, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await frames.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await frames.return(undefined);
    },
  });
  const sseHeaders = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...headers };
  return new Response(body, { status: 200, headers: sseHeaders });
}
