/**
 * A model role of the tenant policy (`models.default`, `.planner`, `.qllm`, `.spoke`): which provider
 * answers it and how, and what a role may combine (docs/models.md).
 */
import * as z from "zod";

/**
 * AI Gateway's request headers a tenant may set: caching and metadata only. The rest (logging off,
 * custom cost, retries, the token) change how the gateway bills or records a call, which is the
 * gateway owner's to decide; the token goes as the apiKey with `apiKeyHeader`.
 */
const GATEWAY_HEADERS = ["cf-aig-cache-ttl", "cf-aig-skip-cache", "cf-aig-cache-key", "cf-aig-metadata"];
/** Printable ASCII only: a CR or LF would start another header. */
const HeaderValue = z
  .string()
  .max(1024)
  .regex(/^[\x20-\x7e]*$/, "a header value is printable ASCII (no CR, LF or other control characters)");
const GatewayHeaders = z.record(z.string(), HeaderValue).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > 8) ctx.addIssue({ code: "custom", message: "at most 8 headers" });
  for (const name of names) {
    const message =
      name === "cf-aig-authorization"
        ? 'the gateway token is the apiKey, sent with apiKeyHeader "cf-aig-authorization"'
        : GATEWAY_HEADERS.includes(name)
          ? null
          : `only AI Gateway's ${GATEWAY_HEADERS.join(", ")}`;
    if (message) ctx.addIssue({ code: "custom", path: [name], message });
  }
});

export const ModelRoleSchema = z.strictObject({
  provider: z.enum(["openai", "workers-ai", "scripted"]),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().min(1),
  apiKey: z.string().min(1).optional(),
  /**
   * How the provider is held to a schema (docs/models.md): `strict` (OpenAI strict JSON schema),
   * `json_schema` (a hint; Workers AI's JSON mode), `guided_json` (vLLM), `json_object` (JSON mode
   * only), `none`. Unset: the known provider's default.
   */
  output: z.enum(["strict", "json_schema", "guided_json", "json_object", "none"]).optional(),
  /** Where the apiKey is sent: `authorization` (default) or AI Gateway's `cf-aig-authorization`. */
  apiKeyHeader: z.enum(["authorization", "cf-aig-authorization"]).optional(),
  headers: GatewayHeaders.optional(),
  /** workers-ai: the AI Gateway its calls go through (the gateway's id). */
  gateway: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/)
    .optional(),
  /** The scripted provider's answers, as data (DESIGN.md: "responses defined as data"). */
  script: z
    .array(
      z.strictObject({
        role: z.enum(["planner", "qllm", "spoke"]).optional(),
        when: z.string().max(2000).optional(),
        seen: z.string().max(2000).optional(),
        respond: z.json().optional(),
        toolCalls: z
          .array(z.strictObject({ name: z.string().min(1), arguments: z.json() }))
          .max(32)
          .optional(),
        latencyMs: z.int().min(0).max(120_000).optional(),
      }),
    )
    .max(1000)
    .optional(),
});

/** What a model role may combine: workers-ai runs over the Worker's binding (no host, no key, JSON mode). */
export function modelRoleProblems(m: z.output<typeof ModelRoleSchema>): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  if (m.provider === "workers-ai") {
    if (m.baseURL)
      problems.push(["baseURL", "workers-ai runs over the Worker's AI binding and takes no baseURL"]);
    if (m.apiKey)
      problems.push(["apiKey", "workers-ai runs over the Worker's AI binding and takes no apiKey"]);
    if (m.output === "strict" || m.output === "guided_json")
      problems.push(["output", "workers-ai takes json_schema (its JSON mode), json_object or none"]);
    for (const field of ["headers", "apiKeyHeader"] as const)
      if (m[field])
        problems.push([field, `workers-ai runs over the Worker's AI binding and takes no ${field}`]);
    return problems;
  }
  if (m.gateway)
    problems.push(["gateway", "gateway is for workers-ai; an openai provider names its gateway in baseURL"]);
  // Without a baseURL the call goes to the deployment's endpoint on the deployment's key: its
  // gateway, its bill. Gateway headers and the key's header are for the tenant's own gateway.
  if (m.provider === "openai" && !m.baseURL)
    for (const field of ["headers", "apiKeyHeader"] as const)
      if (m[field]) problems.push([field, `${field} goes only with the role's own baseURL (its AI Gateway)`]);
  return problems;
}

export type ModelRole = z.output<typeof ModelRoleSchema>;
