import { CodedError } from "../result.ts";

/** The model layer's vocabulary. Models serve utility and are never trusted: callers re-validate output. */

export const MODEL_ROLES = ["planner", "qllm", "spoke"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model wrote it; the caller parses and validates. */
  arguments: string;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * How a provider is held to a schema (capabilities.ts): strict JSON schema (OpenAI `strict: true`),
 * JSON schema as a hint, vLLM's guided decoding, JSON mode only, or nothing (the schema in the prompt).
 */
export const OUTPUT_MODES = ["strict", "json_schema", "guided_json", "json_object", "none"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

export interface CompletionRequest {
  role: ModelRole;
  messages: ChatMessage[];
  /**
   * Structured output: the answer must be JSON for `schema` (re-checked by the caller). `strict` is
   * the same in the form strict decoding takes; a provider held to it answers in that form.
   */
  schema?: { name: string; schema: Record<string, unknown>; strict?: Record<string, unknown> };
  tools?: ToolDefinition[];
}

/** Why the answer ended: `length` is cut off at the token limit, `refusal` declined (or filtered). */
export type FinishReason = "stop" | "length" | "refusal" | "tool_calls";

export interface CompletionResult {
  text: string;
  toolCalls: ToolCall[];
  usage: { inputTokens: number; outputTokens: number };
  /** Which provider and model answered, for traces ("scripted" is always named as such). */
  model: string;
  /** Unset means `stop`. */
  finish?: FinishReason;
  /** `strict` when the answer was held to the request's strict schema: it needs decoding. */
  form?: "strict" | "plain";
}

export interface ModelConfig {
  provider: "openai" | "workers-ai" | "scripted";
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** How the provider is held to a schema; unset: the known provider's default (capabilities.ts). */
  output?: OutputMode;
  /** Where the key goes: `authorization` (the default) or AI Gateway's `cf-aig-authorization`. */
  apiKeyHeader?: "authorization" | "cf-aig-authorization";
  /** Extra `cf-aig-*` request headers for AI Gateway (caching, metadata); never secrets. */
  headers?: Record<string, string>;
  /** workers-ai only: the AI Gateway the binding's calls go through. */
  gateway?: string;
  /**
   * workers-ai only: the gateway ids the deployment allows (LATTICE_AI_GATEWAYS), filled in by
   * modelFor. Gateways belong to the deployment's account, so a tenant names only these.
   */
  gateways?: readonly string[];
  /** Scripted provider only: responses as data (see script.ts). */
  script?: ScriptEntry[];
}

export interface ScriptEntry {
  /** Only for this role (scripted provider; the fake server keys scripts by model name instead). */
  role?: ModelRole;
  /** Case-insensitive text that must occur in the request's last user message or tool result. */
  when?: string;
  /** Case-insensitive text that must occur in any message (an obedient model acts on all it is given). */
  seen?: string;
  /** The answer: JSON (sent as its text) or plain text. */
  respond?: unknown;
  /** Or tool calls, for the spoke role's tool-calling loop. */
  toolCalls?: Array<{ name: string; arguments: unknown }>;
  /** Simulated latency. */
  latencyMs?: number;
}

export interface ModelLimits {
  timeoutMs: number;
  maxOutputTokens: number;
  /** Retries on transport failures only (connection, 502/503/504), never on a bad answer. */
  maxRetries: number;
}

export const DEFAULT_MODEL_LIMITS: ModelLimits = { timeoutMs: 30_000, maxOutputTokens: 4096, maxRetries: 2 };

/** A provider's answer larger than this is refused unread (a hostile host could send anything). */
export const MAX_ANSWER_BYTES = 2_000_000;

import type { ModelErrorCode } from "../contracts.ts";

export type { ModelErrorCode };

/** A model call that failed; ends the query (fail-closed), never fed back to a planner. */
export class ModelError extends CodedError<ModelErrorCode> {}
