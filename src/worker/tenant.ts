import { tenantObjectName } from "../objects/names.ts";
import { type Rpc, rpc } from "../objects/rpc.ts";
import type { TenantDO } from "../objects/tenant/index.ts";
import type { AppEnv, Env } from "./env.ts";

/** The caller's own TenantDO: the tenant id comes from the verified key, never from the request. */
export function tenantOf(c: { env: Env; var: AppEnv["Variables"] }): Rpc<TenantDO> {
  return rpc<TenantDO>(c.env.TENANT.getByName(tenantObjectName(c.var.principal.tenantId)));
}
