import { createMiddleware } from "hono/factory";
import { tenantPolicy } from "../../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../../env.ts";

const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Lattice-Session";
/** The OpenAI SDK's own telemetry headers (x-stainless-os, …): allowed so its browser build works. */
const SDK_HEADER = /^x-stainless-[a-z0-9-]{1,40}$/;
const EXPOSED_HEADERS = "Retry-After, X-Lattice-Session";

/** Our headers, and whichever SDK headers the preflight asks for (names only, never values). */
function allowedHeaders(requested: string | undefined): string {
  const sdk = (requested ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => SDK_HEADER.test(h))
    .slice(0, 20);
  return [ALLOWED_HEADERS, ...sdk].join(", ");
}

/**
 * CORS for browsers holding a user token, from the origins the tenant's policy lists. A preflight
 * is answered for any origin (it carries no credential, so it cannot say which tenant asks): it
 * lets the browser send the request, not read the answer. The answer is readable only by a listed
 * origin and only for a user token: a response to an API key never gets CORS headers.
 */
export const cors = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin && c.req.method === "OPTIONS") {
    return c.body(null, 204, {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
      "Access-Control-Allow-Headers": allowedHeaders(c.req.header("Access-Control-Request-Headers")),
      "Access-Control-Max-Age": "600",
      Vary: "Origin",
    });
  }
  await next();
  const principal = c.get("principal");
  if (!origin || !principal?.user) return;
  if (!(await allowedOrigins(c.env, principal.tenantId)).has(origin)) return;
  c.res.headers.set("Access-Control-Allow-Origin", origin);
  c.res.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  c.res.headers.append("Vary", "Origin");
});

/** Each tenant's listed origins, from the isolate's replica of the tenant (tenant-replica/). */
function allowedOrigins(env: Env, tenantId: string): Promise<Set<string>> {
  return tenantPolicy(env, tenantId).then(
    (policy) => new Set(policy.cors.origins.map((o) => new URL(o).origin)),
  );
}
