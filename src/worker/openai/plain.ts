import { type ChatMessage, complete, DEFAULT_MODEL_LIMITS, ModelError } from "../../llm/index.ts";
import { beginPlainCall, recordTokens } from "../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, quotaExceeded } from "../errors.ts";
import { type ChatBody, oaiError } from "./protocol.ts";

type Ctx = {
  env: AppEnv["Bindings"];
  var: AppEnv["Variables"];
  executionCtx: { waitUntil(promise: Promise<unknown>): void };
};

/** A background completion is small: the conversation's tail, a short answer. */
const MAX_MESSAGES = 20;
const MAX_CHARS = 16_000;
const MAX_OUTPUT_TOKENS = 512;

/**
 * `lattice-plain`: the frontend's background completions (chat titles, tags, follow-ups) answered by
 * the tenant's plain model (the spoke role's, with no apps, no tools and no user data beyond what the
 * frontend sent), so they never plan, call an app or ask a consent. Only where the policy turns it
 * on (`plainModel.enabled`): each call counts in its own daily quota (`plainCallsPerDay`), its
 * tokens in the tenant's. The offline demo's scripted model knows no such task: there it answers a title made of the
 * last message's first words instead.
 */
export async function plainAnswer(c: Ctx, body: ChatBody, lastText: string): Promise<string> {
  const { tenantId } = c.var.principal;
  const waitUntil = (counted: Promise<unknown>) => {
    try {
      c.executionCtx.waitUntil(counted);
    } catch {
      // No execution context (a direct call of the handler): the batch's own timer still sends it.
    }
  };
  const resolved = await beginPlainCall(c.env, tenantId, waitUntil);
  if (!resolved.ok) {
    if (resolved.code === "plain_off")
      throw oaiError(403, "plain_model_off", "the tenant's policy does not offer lattice-plain", "model");
    if (resolved.details) throw quotaExceeded(resolved.details);
    throw new ApiError(429, "quota_exceeded", { message: resolved.message, details: { param: null } });
  }
  try {
    const answer = await complete(
      resolved.model,
      { role: "spoke", messages: conversation(body) },
      { ...DEFAULT_MODEL_LIMITS, maxOutputTokens: MAX_OUTPUT_TOKENS },
      { ai: c.env.AI },
    );
    recordTokens(c.env, tenantId, answer.usage.inputTokens + answer.usage.outputTokens, waitUntil);
    return answer.text;
  } catch (err) {
    if (resolved.model.provider === "scripted") return plainTitle(lastText);
    if (!(err instanceof ModelError)) throw err;
    // The provider's own words never reach the frontend (ModelError messages are Lattice's).
    throw new ApiError(502, err.code, { message: err.message, details: { param: null } });
  }
}

/** The frontend's own messages as text, newest kept: its words, for its own background task. */
function conversation(body: ChatBody): ChatMessage[] {
  const out: ChatMessage[] = [];
  let chars = 0;
  for (const m of body.messages.slice(-MAX_MESSAGES).reverse()) {
    const content =
      typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("\n");
    if (!content || chars + content.length > MAX_CHARS) break;
    chars += content.length;
    const role = m.role === "system" || m.role === "assistant" ? m.role : "user";
    out.unshift({ role, content });
  }
  if (!out.length)
    throw oaiError(400, "message_too_long", `the messages exceed ${MAX_CHARS} characters`, "messages");
  return out;
}

/** The offline fallback: a title made of the message's first words. */
function plainTitle(text: string): string {
  const words = text.replace(/\s+/g, " ").trim().split(" ").slice(0, 6).join(" ");
  return words.replace(/[.,;:!?]+$/, "");
}
