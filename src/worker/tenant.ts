import { createMiddleware } from "hono/factory";
import type { Rpc } from "../objects/rpc.ts";
import { type TenantAdmin, tenantAdmin } from "../objects/stubs.ts";
import { forgetTenant, tenantPolicy } from "../objects/tenant-replica/index.ts";
import type { AppEnv } from "./env.ts";
import { invalid } from "./errors.ts";

/**
 * The caller's own TenantDO, as the admin's, developers' and operator's routes reach it: the tenant
 * id comes from the verified key, never from the request.
 */
export function tenantOf(c: { env: Env; var: AppEnv["Variables"] }): Rpc<TenantAdmin> {
  return tenantAdmin(c.env, c.var.principal.tenantId);
}

/**
 * After a successful write by a tenant's admin or developer, this isolate asks for the tenant's
 * state anew: a revoked key's tokens, a disabled app or a new policy hold at once here, not after
 * STATE_BOUND_MS (other isolates follow within it; the TenantDO forgets it in its own).
 */
export const forgetTenantOnWrite = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const principal = c.get("principal");
  if (principal && c.req.method !== "GET" && c.res.status < 400) forgetTenant(principal.tenantId);
});

/** Refuses (400, at `body.roles`) roles the tenant's policy does not define; none asked, nothing read. */
export async function requireKnownRoles(
  c: { env: Env; var: AppEnv["Variables"] },
  roles: readonly string[] | undefined,
): Promise<void> {
  if (!roles?.length) return;
  // A session or a user token is made per user: read from the isolate's replica, not the tenant.
  const policy = await tenantPolicy(c.env, c.var.principal.tenantId);
  const unknown = roles.filter((r) => !Object.hasOwn(policy.roles, r));
  if (unknown.length) {
    throw invalid(
      "unknown role",
      unknown.map((r) => ({ field: "body.roles", message: `no role "${r}" in the tenant policy` })),
    );
  }
}
