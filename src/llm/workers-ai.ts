import { isRecord } from "../policy/json.ts";
import { outputModeOf, withSchema } from "./capabilities.ts";
import {
  type ChatMessage,
  type CompletionRequest,
  type CompletionResult,
  type FinishReason,
  MAX_ANSWER_BYTES,
  type ModelConfig,
  ModelError,
  type ModelLimits,
  type ToolCall,
} from "./types.ts";

/**
 * The Worker's `AI` binding, as far as this provider uses it: structural, so this module needs no
 * Workers types (the Env declares the binding with this interface).
 */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

/**
 * Workers AI over the `AI` binding. JSON mode (`response_format: json_schema`) constrains decoding,
 * so it is given the strict form of the schema: closed objects compile, open maps may not. The
 * answer comes in one of two shapes: `{response, tool_calls, usage}` (most models) or an OpenAI
 * chat completion (models served through the OpenAI-compatible path); both are read.
 */
export async function completeWorkersAi(
  config: ModelConfig,
  request: CompletionRequest,
  limits: ModelLimits,
  ai: AiBinding | undefined,
): Promise<CompletionResult> {
  if (!ai) {
    throw new ModelError(
      "model_not_configured",
      'the workers-ai provider needs the Worker\'s AI binding ([ai] binding = "AI" in wrangler.toml), and this deployment has none',
    );
  }
  if (config.gateway && !config.gateways?.includes(config.gateway)) {
    throw new ModelError(
      "model_not_configured",
      `the AI Gateway "${config.gateway}" is not one this deployment allows (LATTICE_AI_GATEWAYS)`,
    );
  }
  const mode = outputModeOf(config);
  const strict = mode === "json_schema" && request.schema?.strict;
  const messages = mode === "json_object" || mode === "none" ? withSchema(request) : request.messages;
  const inputs: Record<string, unknown> = {
    messages: messages.map(toWorkersAiMessage),
    max_tokens: limits.maxOutputTokens,
    ...(strict && { response_format: { type: "json_schema", json_schema: strict } }),
    ...(mode === "json_object" && request.schema && { response_format: { type: "json_object" } }),
    ...(request.tools?.length && {
      tools: request.tools.map((t) => ({ type: "function", function: t })),
    }),
  };
  const options = config.gateway ? { gateway: { id: config.gateway } } : {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ModelError("model_timeout", `the model did not answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
  });
  const chars = messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
  let answer: Answer;
  try {
    answer = readAnswer(await Promise.race([ai.run(config.model, inputs, options), timeout]));
  } catch (error) {
    if (error instanceof ModelError) throw error;
    // JSON mode that could not be met is an answer that is not JSON for the schema, which gets the
    // one repair-free retry; the input was still read, so it is counted.
    if (request.schema && /JSON Mode couldn't be met/i.test(String((error as Error)?.message ?? error)))
      answer = { text: "", toolCalls: [], usage: { inputTokens: Math.ceil(chars / 4), outputTokens: 0 } };
    // The binding's own words stay out of the answer, as a provider's error body does.
    else
      throw new ModelError("model_failed", "model call failed: Workers AI answered with an error", {
        cause: error,
      });
  } finally {
    clearTimeout(timer);
  }
  const bytes = new TextEncoder().encode(answer.text).byteLength;
  if (bytes > MAX_ANSWER_BYTES)
    throw new ModelError(
      "model_failed",
      `model call failed: the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
    );
  return {
    ...answer,
    // Models that report no usage are estimated, so the tenant's token quota still counts them.
    usage: answer.usage ?? {
      inputTokens: Math.ceil(chars / 4),
      outputTokens: Math.ceil(bytes / 4),
    },
    model: `workers-ai:${config.model}`,
    form: strict ? "strict" : "plain",
  };
}

/** A message as Workers AI takes it: OpenAI's shape, an assistant's tool calls included. */
function toWorkersAiMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === "tool") return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
  if (m.role === "assistant" && m.toolCalls?.length)
    return {
      role: "assistant",
      content: m.content ?? "",
      tool_calls: m.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  return { role: m.role, content: m.content ?? "" };
}

type Answer = Omit<CompletionResult, "model" | "form" | "usage"> & {
  usage: CompletionResult["usage"] | null;
};

const text = (v: unknown) =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

function readAnswer(raw: unknown): Answer {
  if (typeof raw === "string") return { text: raw, toolCalls: [], usage: null, finish: "stop" };
  if (!isRecord(raw))
    throw new ModelError("model_failed", "model call failed: Workers AI's answer could not be read");
  const usage = isRecord(raw.usage)
    ? {
        inputTokens: Number(raw.usage.prompt_tokens) || 0,
        outputTokens: Number(raw.usage.completion_tokens) || 0,
      }
    : null;
  const choice = Array.isArray(raw.choices) && isRecord(raw.choices[0]) ? raw.choices[0] : null;
  if (choice) {
    const message = isRecord(choice.message) ? choice.message : {};
    const toolCalls = calls(message.tool_calls);
    const reason = choice.finish_reason;
    // A filtered answer is the provider declining, as openai.ts reads it: not a malformed plan.
    const finish: FinishReason =
      message.refusal || reason === "content_filter"
        ? "refusal"
        : reason === "length"
          ? "length"
          : toolCalls.length
            ? "tool_calls"
            : "stop";
    return { text: text(message.content), toolCalls, usage, finish };
  }
  const toolCalls = calls(raw.tool_calls);
  // JSON mode may hand back the answer already parsed: it is turned back into text, as others send it.
  return { text: text(raw.response), toolCalls, usage, finish: toolCalls.length ? "tool_calls" : "stop" };
}

function calls(list: unknown): ToolCall[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((c, i) => {
    const fn = isRecord(c.function) ? c.function : c;
    return {
      id: typeof c.id === "string" ? c.id : `call_${i}`,
      name: String(fn.name ?? ""),
      arguments: text(fn.arguments),
    };
  });
}
