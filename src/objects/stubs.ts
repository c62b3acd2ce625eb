import { counted } from "./call-counts.ts";
import { artifactsObjectName, hubObjectName, spokeObjectName, tenantObjectName } from "./names.ts";
import { type Rpc, rpc } from "./rpc.ts";

/**
 * Typed stubs of the four Durable Objects, each named from server-verified ids only (names.ts).
 * The classes come from the ambient bindings (src/env.d.ts), so this module imports no object and
 * every object may use it without an import cycle.
 */
type Bindings = Pick<Env, "TENANT" | "HUB" | "SPOKE" | "ARTIFACTS"> & { LATTICE_COUNT_CALLS?: string };
type ObjectOf<N> = N extends DurableObjectNamespace<infer T> ? T : never;
type TenantDO = ObjectOf<Env["TENANT"]>;
type HubDO = ObjectOf<Env["HUB"]>;
type SpokeDO = ObjectOf<Env["SPOKE"]>;
type ArtifactsDO = ObjectOf<Env["ARTIFACTS"]>;

const count = (env: Bindings) => env.LATTICE_COUNT_CALLS === "on";

export const tenantStub = (env: Bindings, tenantId: string): Rpc<TenantDO> =>
  rpc<TenantDO>(counted("TenantDO", env.TENANT.getByName(tenantObjectName(tenantId)), count(env)));

export const artifactsStub = (env: Bindings, tenantId: string, userId: string): Rpc<ArtifactsDO> =>
  rpc<ArtifactsDO>(
    counted("ArtifactsDO", env.ARTIFACTS.getByName(artifactsObjectName(tenantId, userId)), count(env)),
  );

export const spokeStub = (env: Bindings, tenantId: string, userId: string, appId: string): Rpc<SpokeDO> =>
  rpc<SpokeDO>(counted("SpokeDO", env.SPOKE.getByName(spokeObjectName(tenantId, userId, appId)), count(env)));

export const hubStub = (env: Bindings, tenantId: string, sessionId: string): Rpc<HubDO> =>
  rpc<HubDO>(counted("HubDO", env.HUB.getByName(hubObjectName(tenantId, sessionId)), count(env)));
