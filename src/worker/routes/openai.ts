import { Hono } from "hono";
import { randomId } from "../../objects/crypto.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import { consentLinkTokens } from "../chat/consent-links.ts";
import { follow, owedQuery, recordTurn, settle } from "../chat/follow.ts";
import { latticeField } from "../chat/lattice-field.ts";
import { progressLine } from "../chat/progress.ts";
import { renderQuery, renderResumed } from "../chat/render.ts";
import {
  callerUser,
  consoleBase,
  newSession,
  ownSession,
  SESSION_HEADER,
  sse,
  startQuery,
} from "../chat/session.ts";
import { chatSessionId, firstHeader, trustedHeaders } from "../chat/trusted-headers.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { plainAnswer } from "../openai/plain.ts";
import {
  type Answer,
  ChatBody,
  chunks,
  completion,
  lastUserText,
  MODELS,
  type ModelId,
  oaiError,
  oaiErrorBody,
} from "../openai/protocol.ts";

const base = new Hono<AppEnv>();
base.use(requireRole("frontend"));
// Mounted with .route(), a sub-app's own onError wraps its handlers and middleware: every error here,
// auth included, answers in OpenAI's shape (clients of this endpoint parse no other).
base.onError((err, c) => {
  const apiError = err instanceof ApiError ? err : null;
  if (!apiError) console.error("unhandled error", err);
  const shown = apiError ?? new ApiError(500, "internal_error", { message: "internal error" });
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
    const trusted = await trustedHeaders(c.env, c.var.principal.tenantId);
    const user = callerUser(c, body.user, "user", firstHeader(c, trusted.user), trusted.user);
    const stream = body.stream === true;
    const includeUsage = body.stream_options?.include_usage === true;

    if (model === "lattice-plain") {
      // Never a hub, planner or app: a frontend's background completion gets the plain model.
      const id = randomId("chatcmpl", 12);
      if (!stream) return c.json(completion(id, model, await plainAnswer(c, body, text)));
      return sse(
        chunks(id, model, includeUsage, async () => ({ content: await plainAnswer(c, body, text) })),
      );
    }

    // X-Lattice-Session first; else a chat's turns share the session derived from its chat id.
    const header = c.req.header(SESSION_HEADER);
    const chat = header ? undefined : firstHeader(c, trusted.chat);
    const { sid, hub } = header
      ? { sid: header, hub: await ownSession(c, user, header) }
      : await newSession(
          c,
          user,
          chat && (await chatSessionId(c.env.LATTICE_KEY_SECRET, c.var.principal.tenantId, user, chat)),
        );
    const links = { consoleBase: consoleBase(c.env.LATTICE_PUBLIC_URL, c.req.url), sid };
    // A turn after one that left its query open (asking, or still running) reports on that query:
    // its text is not run, and never taken as a consent's answer (what an injection could forge).
    const owed = await owedQuery(hub);
    const qid = owed?.id ?? (await startQuery(hub, text)).id;
    const id = `chatcmpl-${qid}`;
    // Always named, so a client that opened a session this turn can send it on the next.
    const headers = { [SESSION_HEADER]: sid };
    const outcome = async (query: QueryView): Promise<Answer> => {
      await recordTurn(hub, query);
      const linked = { ...links, tokens: await consentLinkTokens(c, user, sid, query) };
      const content = owed ? renderResumed(query, linked) : renderQuery(query, linked);
      return { content, lattice: latticeField(query, sid) };
    };
    if (!stream) {
      const { content, lattice } = await outcome(await settle(hub, qid));
      return c.json(completion(id, model, content, lattice), 200, headers);
    }
    // A turn that reports on an earlier one's query shows only the progress made since.
    const after = owed?.trace.at(-1)?.seq ?? 0;
    // The query's progress as lines while it runs (each step, each report of an app's progress), then the answer.
    const answer = async function* (signal: AbortSignal): AsyncGenerator<string, Answer> {
      const events = follow(hub, qid, after, signal);
      try {
        let next = await events.next();
        for (; !next.done; next = await events.next()) {
          const line = progressLine(next.value);
          if (line) yield line;
        }
        return await outcome(next.value);
      } finally {
        await events.return(undefined as never); // a client gone mid-way: the hub's stream is let go
      }
    };
    return sse((signal) => chunks(id, model, includeUsage, () => answer(signal)), headers);
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
