import type { ChatMessage, CompletionRequest, ModelConfig, OutputMode } from "./types.ts";

/**
 * What each provider is asked for, by output mode (docs/models.md has the table). A mode the
 * policy names wins; otherwise the known provider's default: OpenAI itself (directly or through AI
 * Gateway's `openai` route) takes strict schemas; Workers AI its JSON mode; any other
 * OpenAI-compatible host (vLLM, Ollama, LM Studio, …) JSON schema as a hint, which they all accept.
 */
export function outputModeOf(config: ModelConfig): OutputMode {
  if (config.output) return config.output;
  if (config.provider !== "openai") return "json_schema";
  if (!config.baseURL) return "strict";
  // A deployment's OPENAI_BASE_URL is not checked like a policy's: an unreadable one gets the hint.
  let url: URL;
  try {
    url = new URL(config.baseURL);
  } catch {
    return "json_schema";
  }
  if (url.hostname === "api.openai.com") return "strict";
  if (url.hostname === "gateway.ai.cloudflare.com" && /\/openai\/?$/.test(url.pathname)) return "strict";
  return "json_schema";
}

/**
 * Whether the provider is held to the strict form of a schema (closed objects, maps as `{name,
 * value}` lists): OpenAI strict, vLLM's structured outputs (`guided_json`), Workers AI's JSON mode.
 */
export function needsStrictForm(config: ModelConfig): boolean {
  const mode = outputModeOf(config);
  if (config.provider === "workers-ai") return mode === "json_schema";
  return config.provider === "openai" && (mode === "strict" || mode === "guided_json");
}

/** The parts of an OpenAI-compatible request that carry the schema, for a mode. */
export interface SchemaParts {
  body: Record<string, unknown>;
  messages: ChatMessage[];
  form: "strict" | "plain";
}

export function openAiSchemaParts(mode: OutputMode, request: CompletionRequest): SchemaParts {
  const schema = request.schema;
  const plain = { body: {}, messages: request.messages, form: "plain" as const };
  if (!schema) return plain;
  const strict = schema.strict;
  switch (mode) {
    case "strict":
    case "guided_json": {
      if (!strict) break;
      const response_format = {
        type: "json_schema",
        json_schema: { name: schema.name, schema: strict, strict: true },
      };
      // vLLM enforces response_format (and its own structured_outputs, the same constraint: one
      // kind, so both are accepted); it dropped guided_json in v0.12 and ignores fields it lacks.
      const body =
        mode === "strict" ? { response_format } : { response_format, structured_outputs: { json: strict } };
      return { body, messages: request.messages, form: "strict" };
    }
    case "json_object":
      return {
        body: { response_format: { type: "json_object" } },
        messages: withSchema(request),
        form: "plain",
      };
    case "none":
      return { body: {}, messages: withSchema(request), form: "plain" };
  }
  return {
    body: {
      response_format: {
        type: "json_schema",
        json_schema: { name: schema.name, schema: schema.schema, strict: false },
      },
    },
    messages: request.messages,
    form: "plain",
  };
}

/** JSON mode and plain providers read the schema in the prompt (JSON mode also needs the word "JSON"). */
export function withSchema(request: CompletionRequest): ChatMessage[] {
  if (!request.schema) return request.messages;
  const note: ChatMessage = {
    role: "system",
    content: `Reply with one JSON document and nothing else: no prose, no code fence. It must match this JSON Schema:\n${JSON.stringify(request.schema.schema)}`,
  };
  const lead = request.messages[0]?.role === "system" ? 1 : 0;
  return [...request.messages.slice(0, lead), note, ...request.messages.slice(lead)];
}
