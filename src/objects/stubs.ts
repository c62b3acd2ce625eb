import { artifactsObjectName, hubObjectName, spokeObjectName, tenantObjectName } from "./names.ts";
import { type Rpc, rpc } from "./rpc.ts";

/**
 * Typed stubs of the four Durable Objects, each named from server-verified ids only (names.ts).
 * The classes come from the ambient bindings (src/env.d.ts), so this module imports no object and
 * every object may use it without an import cycle.
 */
type Bindings = Pick<Env, "TENANT" | "HUB" | "SPOKE" | "ARTIFACTS">;
type ObjectOf<N> = N extends DurableObjectNamespace<infer T> ? T : never;
type TenantDO = ObjectOf<Env["TENANT"]>;
type HubDO = ObjectOf<Env["HUB"]>;
type SpokeDO = ObjectOf<Env["SPOKE"]>;
type ArtifactsDO = ObjectOf<Env["ARTIFACTS"]>;

export const tenantStub = (env: Bindings, tenantId: string): Rpc<TenantDO> =>
  rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenantId)));

export const artifactsStub = (env: Bindings, tenantId: string, userId: string): Rpc<ArtifactsDO> =>
  rpc<ArtifactsDO>(env.ARTIFACTS.getByName(artifactsObjectName(tenantId, userId)));

export const spokeStub = (env: Bindings, tenantId: string, userId: string, appId: string): Rpc<SpokeDO> =>
  rpc<SpokeDO>(env.SPOKE.getByName(spokeObjectName(tenantId, userId, appId)));

export const hubStub = (env: Bindings, tenantId: string, sessionId: string): Rpc<HubDO> =>
  rpc<HubDO>(env.HUB.getByName(hubObjectName(tenantId, sessionId)));
