import { z } from "@hono/zod-openapi";
import { ApiError, type ApiErrorCode } from "../errors.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { shedding } from "../shed.ts";

/** The models this endpoint answers as; nothing else is accepted. */
export const MODELS = ["lattice", "lattice-plain"] as const;
export type ModelId = (typeof MODELS)[number];

const Part = z.object({ type: z.string(), text: z.string().optional() });
const Message = z.object({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
});

/** The request fields Lattice reads; the rest of OpenAI's (temperature, tools…) are accepted and ignored. */
export const ChatBody = z.object({
  model: z.string({ error: "model is required" }),
  messages: z.array(Message, { error: "messages must be an array" }).min(1, "messages must not be empty"),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  user: UserIdSchema.optional(),
});
export type ChatBody = z.infer<typeof ChatBody>;

/** An error in OpenAI's shape: `param` names the offending request field. */
export function oaiError(
  status: 400 | 401 | 403 | 404 | 429,
  code: ApiErrorCode,
  message: string,
  param?: string,
) {
  return new ApiError(status, code, { message, details: { param: param ?? null } });
}

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

interface OaiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export function oaiErrorBody(err: ApiError): OaiErrorBody {
  const details = err.details as { param?: unknown; [k: string]: unknown } | unknown[] | undefined;
  let param: string | null = null;
  if (Array.isArray(details)) param = (details[0] as { field?: string } | undefined)?.field ?? null;
  else if (typeof details?.param === "string") param = details.param;
  const type = TYPES[err.status] ?? (err.status >= 500 ? "server_error" : "invalid_request_error");
  return { error: { message: err.message, type, param, code: err.code } };
}

/** The query is the last user message's text only: whatever else the client sends is not Lattice's word. */
export function lastUserText(body: ChatBody): string {
  const last = body.messages.findLast((m) => m.role === "user");
  if (!last) throw oaiError(400, "no_user_message", "messages must contain a user message", "messages");
  const content = last.content ?? "";
  const text = (typeof content === "string" ? content : content.map((p) => p.text ?? "").join("\n")).trim();
  if (!text) throw oaiError(400, "empty_message", "the last user message has no text", "messages");
  if (text.length > 8000) {
    throw oaiError(400, "message_too_long", "the last user message exceeds 8000 characters", "messages");
  }
  return text;
}

const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function completion(id: string, model: ModelId, content: string, lattice?: unknown) {
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: USAGE,
    ...(lattice !== undefined && { lattice }),
  };
}

export interface Answer {
  content: string;
  lattice?: unknown;
}

/** The request header a frontend opts into a way of showing progress with. */
export const PROGRESS_HEADER = "X-Lattice-Progress";
export const PROGRESS_MODES = ["reasoning", "status"] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/** The header's mode: `reasoning` when absent; an unknown word is a 400 naming the header. */
export function progressMode(header: string | undefined): ProgressMode {
  const word = header?.trim().toLowerCase() || "reasoning";
  if ((PROGRESS_MODES as readonly string[]).includes(word)) return word as ProgressMode;
  throw oaiError(
    400,
    "invalid_request",
    `${PROGRESS_HEADER} must be one of ${PROGRESS_MODES.join(", ")}`,
    PROGRESS_HEADER,
  );
}

/**
 * A chat.completion.chunk stream's frames around one answer: role, one frame per progress line the
 * answer yields while it runs, content, stop, usage?, [DONE]. Progress is never content:
 * - `reasoning` (the default): a delta with the line as both `reasoning_content` and `reasoning`.
 *   Open WebUI and LibreChat show either as a collapsible "thinking" block apart from the answer
 *   (LibreChat has read one name, then the other; each reads one of them, never both), and a client
 *   that knows neither (the `openai` SDK's types) reads the same `content` as without them.
 * - `status`: an Open WebUI status event (`{"event": {"type": "status", "data": {description,
 *   done}}}`), shown as a passing status line above the answer and not kept in it; the last one
 *   says `done: true` before the answer.
 */
export async function* chunks(
  id: string,
  model: ModelId,
  includeUsage: boolean,
  answer: () => AsyncGenerator<string, Answer> | Promise<Answer>,
  progress: ProgressMode = "reasoning",
): AsyncGenerator<string> {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frame({ id, object: "chat.completion.chunk", created, model, choices, ...extra });
  const choice = (delta: unknown, finish: string | null) => ({
    index: 0,
    delta,
    finish_reason: finish,
    logprobs: null,
  });
  const status = (description: string, done: boolean) =>
    frame({ event: { type: "status", data: { description, done } } });
  yield chunk([choice({ role: "assistant", content: "" }, null)]);
  let result: Answer;
  let running: AsyncGenerator<string, Answer> | undefined;
  let lastStatus: string | null = null;
  try {
    const produced = answer();
    if (produced instanceof Promise) result = await produced;
    else {
      running = produced;
      for (let next = await running.next(); ; next = await running.next()) {
        if (next.done) {
          result = next.value;
          break;
        }
        if (progress === "status") {
          lastStatus = next.value.trim();
          yield status(lastStatus, false);
        } else {
          const line = `${next.value}\n\n`;
          yield chunk([choice({ reasoning_content: line, reasoning: line }, null)]);
        }
      }
    }
  } catch (err) {
    const known = err instanceof ApiError ? err : shedding(err);
    const apiError = known ?? new ApiError(500, "internal_error", { message: "internal error" });
    if (!known) console.error("openai stream failed", err);
    yield frame(oaiErrorBody(apiError));
    yield "data: [DONE]\n\n";
    return;
  } finally {
    // A client gone mid-progress: the answer's own cleanup (its hub stream) runs now.
    await running?.return(undefined as never);
  }
  if (lastStatus !== null) yield status(lastStatus, true);
  yield chunk([choice({ content: result.content }, null)]);
  yield chunk([choice({}, "stop")], result.lattice === undefined ? {} : { lattice: result.lattice });
  if (includeUsage) yield chunk([], { usage: USAGE });
  yield "data: [DONE]\n\n";
}

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
