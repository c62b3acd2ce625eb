import type { Env } from "../worker/env.ts";
import type { ArtifactsDO } from "./artifacts/index.ts";
import type { HubDO } from "./hub/index.ts";
import { artifactsObjectName, hubObjectName, spokeObjectName, tenantObjectName } from "./names.ts";
import { type Rpc, rpc } from "./rpc.ts";
import type { SpokeDO } from "./spoke/index.ts";
import type { TenantDO } from "./tenant/index.ts";

/** Typed stubs of the four Durable Objects, each named from server-verified ids only (names.ts). */
type Bindings = Pick<Env, "TENANT" | "HUB" | "SPOKE" | "ARTIFACTS">;

export const tenantStub = (env: Bindings, tenantId: string): Rpc<TenantDO> =>
  rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenantId)));

export const vaultStub = (env: Bindings, tenantId: string, userId: string): Rpc<ArtifactsDO> =>
  rpc<ArtifactsDO>(env.ARTIFACTS.getByName(artifactsObjectName(tenantId, userId)));

export const spokeStub = (env: Bindings, tenantId: string, userId: string, appId: string): Rpc<SpokeDO> =>
  rpc<SpokeDO>(env.SPOKE.getByName(spokeObjectName(tenantId, userId, appId)));

export const hubStub = (env: Bindings, tenantId: string, sessionId: string): Rpc<HubDO> =>
  rpc<HubDO>(env.HUB.getByName(hubObjectName(tenantId, sessionId)));
