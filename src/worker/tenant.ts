import type { Rpc } from "../objects/rpc.ts";
import { tenantStub } from "../objects/stubs.ts";
import type { TenantDO } from "../objects/tenant/index.ts";
import type { AppEnv } from "./env.ts";

/** The caller's own TenantDO: the tenant id comes from the verified key, never from the request. */
export function tenantOf(c: { env: Env; var: AppEnv["Variables"] }): Rpc<TenantDO> {
  return tenantStub(c.env, c.var.principal.tenantId);
}
