import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import {
  type ChatMessage,
  type CompletionRequest,
  type CompletionResult,
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
  const client = new OpenAI({
    apiKey: config.apiKey ?? "unused",
    baseURL: config.baseURL,
    timeout: limits.timeoutMs,
    maxRetries: 0,
    fetch: (input, init) => fetch(input, init),
  });
  for (let attempt = 0; ; attempt++) {
    try {
      const completion = await client.chat.completions.create({
        model: config.model,
        messages: request.messages.map(toOpenAIMessage),
        max_completion_tokens: limits.maxOutputTokens,
        ...(request.schema && {
          response_format: {
            type: "json_schema" as const,
            json_schema: { name: request.schema.name, schema: request.schema.schema, strict: false },
          },
        }),
        ...(request.tools?.length && { tools: request.tools.map(toOpenAITool) }),
      });
      const message = completion.choices[0]?.message;
      if (!message) throw new ModelError("model_failed", "the model returned no choice");
      return {
        text: message.content ?? "",
        toolCalls: (message.tool_calls ?? []).flatMap((call) =>
          call.type === "function"
            ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
            : [],
        ),
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
        },
        model: `openai:${config.model}`,
      };
    } catch (error) {
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
