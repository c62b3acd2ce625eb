import type { Rpc } from "../objects/rpc.ts";
import { type TenantAdmin, tenantAdmin } from "../objects/stubs.ts";
import { tenantPolicy } from "../objects/tenant-replica/index.ts";
import type { AppEnv } from "./env.ts";
import { invalid } from "./errors.ts";

/**
 * The caller's own TenantDO, as the admin's, developers' and operator's routes reach it: the tenant
 * id comes from the verified key, never from the request.
 */
export function tenantOf(c: { env: Env; var: AppEnv["Variables"] }): Rpc<TenantAdmin> {
  return tenantAdmin(c.env, c.var.principal.tenantId);
}

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
