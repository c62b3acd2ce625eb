import { completeOpenAI } from "./openai.ts";
import { completeScripted } from "./scripted.ts";
import {
  type CompletionRequest,
  type CompletionResult,
  DEFAULT_MODEL_LIMITS,
  type ModelConfig,
  type ModelLimits,
  type ModelRole,
} from "./types.ts";
import { type AiBinding, completeWorkersAi } from "./workers-ai.ts";

export { needsStrictForm, outputModeOf } from "./capabilities.ts";
export * from "./types.ts";
export type { AiBinding } from "./workers-ai.ts";

export interface ModelSettings {
  default?: ModelConfig;
  planner?: ModelConfig;
  qllm?: ModelConfig;
  spoke?: ModelConfig;
}

/**
 * Which model serves a role: the role's own setting, else the tenant default, else the Worker's
 * OPENAI_BASE_URL / OPENAI_API_KEY, else the offline demo script (named scripted everywhere).
 */
export function modelFor(
  role: ModelRole,
  settings: ModelSettings | undefined,
  env: {
    OPENAI_BASE_URL?: string;
    OPENAI_API_KEY?: string;
    OPENAI_MODEL?: string;
    LATTICE_AI_GATEWAYS?: string;
  },
): ModelConfig {
  const chosen = settings?.[role] ?? settings?.default;
  if (chosen) {
    if (chosen.provider === "workers-ai") return { ...chosen, gateways: allowedGateways(env) };
    if (chosen.provider !== "openai") return chosen;
    const baseURL = chosen.baseURL ?? env.OPENAI_BASE_URL;
    // The deployment's key goes only to the deployment's endpoint, never to a tenant-chosen host.
    const sameHost = !chosen.baseURL || chosen.baseURL === env.OPENAI_BASE_URL;
    const apiKey = chosen.apiKey ?? (sameHost ? env.OPENAI_API_KEY : undefined);
    const config: ModelConfig = { ...chosen, ...(baseURL && { baseURL }), ...(apiKey && { apiKey }) };
    // The deployment's endpoint is its gateway, on its bill: a tenant's gateway headers (cache,
    // metadata) and key header are for the tenant's own gateway, so they do not go there.
    if (sameHost) {
      delete config.headers;
      delete config.apiKeyHeader;
    }
    return config;
  }
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    const config: ModelConfig = { provider: "openai", model: env.OPENAI_MODEL ?? "gpt-4o-mini" };
    if (env.OPENAI_BASE_URL) config.baseURL = env.OPENAI_BASE_URL;
    if (env.OPENAI_API_KEY) config.apiKey = env.OPENAI_API_KEY;
    return config;
  }
  return { provider: "scripted", model: "demo" };
}

/** The AI Gateway ids the deployment lets workers-ai roles name (LATTICE_AI_GATEWAYS, comma-separated). */
function allowedGateways(env: { LATTICE_AI_GATEWAYS?: string }): string[] {
  return (env.LATTICE_AI_GATEWAYS ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
}

/** One model call. `bindings.ai` is the Worker's `AI` binding, which only the workers-ai provider uses. */
export function complete(
  config: ModelConfig,
  request: CompletionRequest,
  limits: ModelLimits = DEFAULT_MODEL_LIMITS,
  bindings: { ai?: AiBinding } = {},
): Promise<CompletionResult> {
  switch (config.provider) {
    case "openai":
      return completeOpenAI(config, request, limits);
    case "workers-ai":
      return completeWorkersAi(config, request, limits, bindings.ai);
    default:
      return completeScripted(config, request);
  }
}
