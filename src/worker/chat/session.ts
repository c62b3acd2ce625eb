import { randomId } from "../../objects/crypto.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import { mayUse } from "../../objects/hub/store.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, type ApiErrorCode, quotaExceeded } from "../errors.ts";
import { callerOf, hubOf } from "../hub.ts";
import { SessionParam, UserIdSchema } from "../schemas/ids.ts";
import { requireKnownRoles } from "../tenant.ts";

/**
 * What the chat adapters (OpenAI-compatible, AI SDK) share: whose turn it is, which session it runs
 * in, and waiting for a query to stop. Each adapter renders the outcome in its own protocol.
 */

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

export const SESSION_HEADER = "X-Lattice-Session";

const badRequest = (code: ApiErrorCode, message: string, param: string) =>
  new ApiError(400, code, { message, details: { param } });

/**
 * The user the turn is for: a user token's own user (a different `given` or header is refused); with
 * a frontend key, the one `given` names or a trusted header (trusted-headers.ts) names, which must
 * agree when both are sent. Only a frontend key, the chat product's server secret, names a user.
 */
export function callerUser(
  c: Ctx,
  given: string | undefined,
  param: string,
  header?: { name: string; value: string },
  trusted?: string[],
): string {
  const token = c.var.principal.user;
  if (token) {
    if (given !== undefined && given !== token.userId) {
      throw badRequest("user_mismatch", `${param} does not match the user token`, param);
    }
    if (header && header.value !== token.userId)
      throw badRequest("user_mismatch", `${header.name} does not match the user token`, header.name);
    return token.userId;
  }
  if (header) {
    if (!UserIdSchema.safeParse(header.value).success)
      throw badRequest(
        "invalid_request",
        `${header.name} is not a user id (letters, digits, _ and -, at most 128)`,
        header.name,
      );
    if (given !== undefined && given !== header.value)
      throw badRequest("user_mismatch", `${param} and ${header.name} name different users`, param);
    return header.value;
  }
  if (given === undefined) throw badRequest("user_required", userRequired(param, trusted), param);
  return given;
}

/**
 * Why no user was named, and what to set: a stock frontend sends no body `user`, so the usual cause
 * is a header it does not send (Open WebUI forwards its user only when started with
 * ENABLE_FORWARD_USER_INFO_HEADERS=true) or one the tenant's policy does not name.
 */
function userRequired(param: string, trusted: string[] | undefined): string {
  const base = `${param} is required with a frontend key`;
  if (!trusted) return base;
  const headers = trusted.length
    ? `or one of the headers the tenant policy's trustedHeaders.user names (${trusted.join(", ")})`
    : "or name the frontend's user header in the tenant policy's trustedHeaders.user (it names none)";
  return `${base}: send ${param}, ${headers}; Open WebUI forwards X-OpenWebUI-User-Id only when started with ENABLE_FORWARD_USER_INFO_HEADERS=true, and a policy change reaches every server within a minute`;
}

/** The user's own session (another user's or an unknown id: 404, as if absent). */
export async function ownSession(c: Ctx, userId: string, sid: string): Promise<Rpc<HubDO>> {
  const notFound = new ApiError(404, "session_not_found", {
    message: "session not found",
    details: { param: SESSION_HEADER },
  });
  if (!SessionParam.safeParse({ sid }).success) throw notFound;
  const hub = hubOf(c, sid);
  const session = await hub.session();
  if (!session || session.userId !== userId || !mayUse(session, callerOf(c))) throw notFound;
  return hub;
}

/** A new session for the user, as POST /v1/sessions opens one without asked roles. */
export async function newSession(c: Ctx, userId: string, sid = randomId("ses", 16)) {
  const roles = c.var.principal.user?.roles ?? [];
  await requireKnownRoles(c, roles.length ? roles : undefined);
  const hub = hubOf(c, sid);
  const session = await hub.open({
    id: sid,
    tenantId: c.var.principal.tenantId,
    userId,
    private: false,
    ...(roles.length && { roles }),
  });
  // Opening keeps an existing session as it is: it must be this user's (a derived id could collide),
  // with no role the token lacks (the frontend key may have opened it with more).
  if (session.userId !== userId || !mayUse(session, callerOf(c)))
    throw new ApiError(404, "session_not_found", { message: "session not found" });
  return { sid, hub };
}

/** Where the console answers consents: the deployment's public URL, else this request's origin. */
export function consoleBase(publicUrl: string | undefined, requestUrl: string): string {
  return `${(publicUrl ?? new URL(requestUrl).origin).replace(/\/+$/, "")}/console`;
}

/**
 * Starts a query in the session, in the request's trace (`trace`: middleware/trace); the hub's
 * refusals become API errors (429 with Retry-After).
 */
export async function startQuery(
  hub: Rpc<HubDO>,
  text: string,
  trace: { traceparent?: string; tracestate?: string } = {},
): Promise<QueryView> {
  const started = await hub.startQuery(text, null, {}, null, {}, trace);
  if (started.ok) return started.query;
  if (started.code === "no_session")
    throw new ApiError(404, "session_not_found", { message: "session not found" });
  if (started.code === "quota_exceeded") throw quotaExceeded(started.details);
  throw new ApiError(400, started.code, { message: started.message, details: { param: null } });
}

/**
 * Server-sent events from a generator of frames (each a whole `data: …\n\n`), pulled as read. Given
 * a function, the generator gets a signal aborted when the client goes away, so one waiting on the
 * hub can stop at once rather than at its next frame.
 */
export function sse(
  frames: AsyncGenerator<string> | ((signal: AbortSignal) => AsyncGenerator<string>),
  headers: Record<string, string> = {},
): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  const source = typeof frames === "function" ? frames(gone.signal) : frames;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      gone.abort();
      await source.return(undefined);
    },
  });
  const sseHeaders = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...headers };
  return new Response(body, { status: 200, headers: sseHeaders });
}
