import { Lru } from "../lru.ts";
import { tenantStub } from "../objects/stubs.ts";
import type { Policy } from "../policy/policy-schema.ts";

/**
 * What a request reads of its tenant's policy before it reaches a Durable Object (the CORS origins,
 * the chat frontends' trusted headers), kept per isolate so that such a request does not ask the
 * tenant object each time. An admin's PUT /v1/admin/policy forgets the tenant here, so the isolate
 * that wrote a policy reads the new one on its next request; another isolate keeps the old one at
 * most TTL_MS (a Worker has no cheap way to tell its other isolates).
 */

export const POLICY_CACHE_TTL_MS = 60_000;

/** Tenants an isolate keeps: one deployment serves many, and the set must not grow without end. */
const MAX_TENANTS = 1_000;
const cached = new Lru<string, { until: number; policy: Promise<Policy> }>(MAX_TENANTS);

/** The tenant's policy as this isolate last read it, at most POLICY_CACHE_TTL_MS ago. */
export function cachedPolicy(env: Env, tenantId: string): Promise<Policy> {
  const hit = cached.get(tenantId);
  if (hit && hit.until > Date.now()) return hit.policy;
  const policy = tenantStub(env, tenantId)
    .policy()
    .then(({ policy }) => policy as Policy);
  // A failed read is not kept: the next request asks again.
  policy.catch(() => {
    if (cached.get(tenantId)?.policy === policy) cached.delete(tenantId);
  });
  cached.set(tenantId, { until: Date.now() + POLICY_CACHE_TTL_MS, policy });
  return policy;
}

/** Drops the tenant's cached policy: called once a new policy is stored. */
export function forgetPolicy(tenantId: string): void {
  cached.delete(tenantId);
}
