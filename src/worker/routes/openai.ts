import { Hono } from "hono";
import { randomId } from "../../objects/crypto.ts";
import { progressLine } from "../chat/progress.ts";
import { callerUser, consoleBase, SESSION_HEADER, sse } from "../chat/session.ts";
import { firstHeader, trustedHeaders } from "../chat/trusted-headers.ts";
import { finishTurn, openTurn, turnEvents, turnSession } from "../chat/turn.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { forwardedTrace } from "../middleware/trace/index.ts";
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
  PROGRESS_HEADER,
  progressMode,
} from "../openai/protocol.ts";
import { shedding } from "../shed.ts";

const base = new Hono<AppEnv>();
base.use(requireRole("frontend"));
// Mounted with .route(), a sub-app's own onError wraps its handlers and middleware: every error here,
// auth included, answers in OpenAI's shape (clients of this endpoint parse no other).
base.onError((err, c) => {
  const apiError = err instanceof ApiError ? err : shedding(err);
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

    const progress = progressMode(c.req.header(PROGRESS_HEADER));
    const { sid, hub } = await turnSession(c, user, firstHeader(c, trusted.chat));
    const links = { consoleBase: consoleBase(c.env.LATTICE_PUBLIC_URL, c.req.url), sid };
    const turn = await openTurn({ hub, sid, user, links, trace: forwardedTrace(c) }, text);
    const id = `chatcmpl-${turn.qid}`;
    // Always named, so a client that opened a session this turn can send it on the next.
    const headers = { [SESSION_HEADER]: sid };
    // The turn's progress as lines while it runs (each step, each report of an app's progress), then the answer.
    const answer = async function* (signal?: AbortSignal): AsyncGenerator<string, Answer> {
      const events = turnEvents(turn, signal);
      try {
        let next = await events.next();
        for (; !next.done; next = await events.next()) {
          // A status event's description is shown as text, not Markdown (Open WebUI's status line).
          const line = progressLine(next.value, progress === "status" ? "text" : "markdown");
          if (line) yield line;
        }
        const { text: content, lattice } = await finishTurn(c, turn, next.value);
        return { content, lattice };
      } finally {
        await events.return(undefined as never); // a client gone mid-way: the hub's stream is let go
      }
    };
    if (!stream) {
      const run = answer();
      let next = await run.next();
      while (!next.done) next = await run.next();
      return c.json(completion(id, model, next.value.content, next.value.lattice), 200, headers);
    }
    return sse((signal) => chunks(id, model, includeUsage, () => answer(signal), progress), headers);
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
