// The Worker's bindings, declared once and ambient (the hand-written equivalent of `wrangler
// types`): objects and routes read `Env` without importing it, so no module imports its way back
// from an object to the Worker. Also tells @cloudflare/workers-types what the Worker exports.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker/index.ts");
    durableNamespaces: "TenantDO" | "HubDO" | "SpokeDO" | "ArtifactsDO";
  }
  interface Env {
    TENANT: DurableObjectNamespace<import("./objects/tenant/index.ts").TenantDO>;
    HUB: DurableObjectNamespace<import("./objects/hub/index.ts").HubDO>;
    SPOKE: DurableObjectNamespace<import("./objects/spoke/index.ts").SpokeDO>;
    ARTIFACTS: DurableObjectNamespace<import("./objects/artifacts/index.ts").ArtifactsDO>;
    /** "dev" allows loopback app endpoints; anything else is production. */
    LATTICE_MODE?: string;
    /** Deployment operator secret for creating tenants (a Worker secret; `.dev.vars` locally). Unset: operator routes refuse. */
    LATTICE_OPERATOR_SECRET?: string;
    /** Seals tenants' model API keys at rest (a Worker secret; `.dev.vars` locally). Unset: keys cannot be stored. */
    LATTICE_KEY_SECRET?: string;
    /** Per-credential request rate (wrangler.toml `[[ratelimits]]`). */
    CREDENTIAL_LIMITER?: RateLimit;
    /** Per-developer-key rate of try-it calls, each an app call (wrangler.toml `[[ratelimits]]`). */
    TRY_LIMITER?: RateLimit;
    /** "off" skips the rate limit (benchmarks measure the hub alone). */
    LATTICE_RATE_LIMIT?: string;
    /** "on": count Durable Object calls by class for the performance bench (GET /v1/operator/metrics/calls). */
    LATTICE_COUNT_CALLS?: string;
    /** How long a verified API key is trusted per isolate without asking its tenant (ms; default 5000, 0: never). */
    LATTICE_PRINCIPAL_TTL_MS?: string;
    /** Where users' browsers reach this API: the OAuth callback of MCP apps is `${LATTICE_PUBLIC_URL}/v1/oauth/callback`. */
    LATTICE_PUBLIC_URL?: string;
    /**
     * Workers AI (`[ai] binding = "AI"`), for the `workers-ai` model provider. Not bound in
     * wrangler.toml: the binding is always remote, so `wrangler dev` and the tests would need a
     * Cloudflare account. Unbound, that provider fails with `model_not_configured`.
     */
    AI?: import("./llm/workers-ai.ts").AiBinding;
    /** The AI Gateway ids (comma-separated) a tenant's workers-ai role may name; unset: none. */
    LATTICE_AI_GATEWAYS?: string;
    /** Where query traces go, OTLP/HTTP with JSON (e.g. `https://collector.example/v1/traces`); unset: no tracing (docs/traces.md). */
    LATTICE_OTLP_ENDPOINT?: string;
    /** Headers for the OTLP endpoint, `name=value` pairs comma-separated (a Worker secret: it usually holds a token). */
    LATTICE_OTLP_HEADERS?: string;
    /**
     * "on": apps receive the query's trace context (`traceparent`), so a product's trace continues
     * into them. Off by default: every app of a query would get the same trace id, an id apps could
     * join their views of one user on, where otherwise they see only per-call ids.
     */
    LATTICE_TRACE_APPS?: string;
    OPENAI_BASE_URL?: string;
    OPENAI_API_KEY?: string;
    OPENAI_MODEL?: string;
  }
}

interface Env extends Cloudflare.Env {}
