import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { readBounded } from "../bounded-body.ts";
import { openAiSchemaParts, outputModeOf } from "./capabilities.ts";
import {
  type ChatMessage,
  type CompletionRequest,
  type CompletionResult,
  type FinishReason,
  MAX_ANSWER_BYTES,
  type ModelConfig,
  ModelError,
  type ModelLimits,
} from "./types.ts";

/**
 * Any OpenAI-compatible endpoint through the `openai` package. Imported lazily: the package is large
 * and only a live (or fake-server) configuration needs it. Retries are ours, on transport failures only.
 */
export async function completeOpenAI(
  config: ModelConfig,
  request: CompletionRequest,
  limits: ModelLimits,
): Promise<CompletionResult> {
  const { default: OpenAI, APIConnectionError, APIConnectionTimeoutError, APIError } = await import("openai");
  let tooLarge = false;
  const client = new OpenAI({
    apiKey: config.apiKey ?? "unused",
    baseURL: config.baseURL,
    timeout: limits.timeoutMs,
    maxRetries: 0,
    defaultHeaders: headersOf(config),
    // The answer is read whole here, never past MAX_ANSWER_BYTES: the SDK itself reads without bound.
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const body = await readBounded(response, MAX_ANSWER_BYTES);
      if (body === "too_large") {
        tooLarge = true;
        throw new Error("answer too large");
      }
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  const parts = openAiSchemaParts(outputModeOf(config), request);
  for (let attempt = 0; ; attempt++) {
    try {
      // The schema parts are typed loosely: `structured_outputs` is vLLM's, not in the SDK's types.
      const body = {
        model: config.model,
        messages: parts.messages.map(toOpenAIMessage),
        max_completion_tokens: limits.maxOutputTokens,
        ...parts.body,
        ...(request.tools?.length && { tools: request.tools.map(toOpenAITool) }),
      } as Parameters<typeof client.chat.completions.create>[0] & { stream?: false };
      const completion = await client.chat.completions.create(body);
      const choice = completion.choices?.[0];
      const message = choice?.message;
      if (!message) throw new ModelError("model_failed", "the model returned no choice");
      const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
        call.type === "function"
          ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
          : [],
      );
      return {
        text: typeof message.content === "string" ? message.content : "",
        toolCalls,
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
        },
        model: `openai:${config.model}`,
        finish: finishOf(choice.finish_reason, Boolean(message.refusal), toolCalls.length > 0),
        form: parts.form,
      };
    } catch (error) {
      if (tooLarge) {
        throw new ModelError(
          "model_failed",
          `model call failed: the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
          {
            cause: error,
          },
        );
      }
      if (error instanceof APIConnectionTimeoutError) {
        throw new ModelError("model_timeout", `the model did not answer within ${limits.timeoutMs} ms`, {
          cause: error,
        });
      }
      const transport =
        error instanceof APIConnectionError ||
        (error instanceof APIError && [502, 503, 504].includes(error.status ?? 0));
      if (transport && attempt < limits.maxRetries) continue;
      if (error instanceof ModelError) throw error;
      // The provider's own words never reach the user: a hostile or misconfigured host could put
      // anything in its error body. The status or the kind of failure says enough; `cause` keeps it.
      const reason =
        error instanceof APIError && error.status
          ? `the provider answered HTTP ${error.status}`
          : error instanceof APIConnectionError
            ? "the provider could not be reached"
            : "the provider's answer could not be read";
      throw new ModelError("model_failed", `model call failed: ${reason}`, { cause: error });
    }
  }
}

/** The key in the header its host expects; AI Gateway's own `cf-aig-*` headers beside it. */
function headersOf(config: ModelConfig): Record<string, string | null> {
  const extra = { ...config.headers };
  if (config.apiKeyHeader === "cf-aig-authorization") {
    // A gateway holding the provider's key (BYOK) takes the gateway token alone.
    return { ...extra, "cf-aig-authorization": `Bearer ${config.apiKey ?? ""}`, Authorization: null };
  }
  return extra;
}

function finishOf(reason: string | null | undefined, refused: boolean, called: boolean): FinishReason {
  if (refused || reason === "content_filter") return "refusal";
  if (reason === "length") return "length";
  if (called || reason === "tool_calls" || reason === "function_call") return "tool_calls";
  return "stop";
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length && {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

function toOpenAITool(tool: {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
