import type { ArtifactsDO } from "../objects/artifacts/index.ts";
import type { HubDO } from "../objects/hub/index.ts";
import type { SpokeDO } from "../objects/spoke/index.ts";
import type { TenantDO } from "../objects/tenant/index.ts";
import type { Role } from "../objects/tenant/keys.ts";

export interface Env {
  TENANT: DurableObjectNamespace<TenantDO>;
  HUB: DurableObjectNamespace<HubDO>;
  SPOKE: DurableObjectNamespace<SpokeDO>;
  ARTIFACTS: DurableObjectNamespace<ArtifactsDO>;
  /** "dev" allows loopback app endpoints; anything else is production. */
  LATTICE_MODE?: string;
  /** Operator secret for creating tenants (a Worker secret; `.dev.vars` locally). Unset: operator routes refuse. */
  LATTICE_OPERATOR_SECRET?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
}

export interface Principal {
  tenantId: string;
  keyId: string;
  role: Role;
}

/** Hono environment shared by every route file. */
export interface AppEnv {
  Bindings: Env;
  Variables: { principal: Principal };
}
