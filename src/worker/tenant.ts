import type { Rpc } from "../objects/rpc.ts";
import { tenantStub } from "../objects/stubs.ts";
import type { TenantDO } from "../objects/tenant/index.ts";
import type { AppEnv } from "./env.ts";
import { invalid } from "./errors.ts";

/** The caller's own TenantDO: the tenant id comes from the verified key, never from the request. */
export function tenantOf(c: { env: Env; var: AppEnv["Variables"] }): Rpc<TenantDO> {
  return tenantStub(c.env, c.var.principal.tenantId);
}

/** Refuses (400, at `body.roles`) roles the tenant's policy does not define; none asked, nothing read. */
export async function requireKnownRoles(
  c: { env: Env; var: AppEnv["Variables"] },
  roles: readonly string[] | undefined,
): Promise<void> {
  if (!roles?.length) return;
  const { policy } = await tenantOf(c).policy();
  const unknown = roles.filter((r) => !Object.hasOwn(policy.roles, r));
  if (unknown.length) {
    throw invalid(
      "unknown role",
      unknown.map((r) => ({ field: "body.roles", message: `no role "${r}" in the tenant policy` })),
    );
  }
}
