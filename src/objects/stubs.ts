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

/**
 * The TenantDO's three callers, each with a narrow surface of its own (issue #31): a caller's stub
 * answers only its surface's methods (any other name reads as undefined), so no caller reaches the
 * whole object. None is on a query's steps: serving reads go through tenant-replica/, which asks
 * only when its state is past its bound.
 */
/** The edge's authentication: a key's digest to its id and role (auth middleware). */
export const TENANT_AUTH = ["authenticate"] as const;
/** Serving users: the replica's state and quota batches, audit batches, an MCP server's drift, a grant's app. */
export const TENANT_SERVING = [
  "servingState",
  "recordUsage",
  "spendExact",
  "appendAudit",
  "recordToolDrift",
  "hasApp",
] as const;
/**
 * The routes of the tenant's admins, its app developers and the operator; and a user's own data
 * rights (export, erasure: #34), which a user token reaches for its user only.
 */
export const TENANT_ADMIN = [
  "create",
  "info",
  "issueKey",
  "listKeys",
  "revokeKey",
  "registerApp",
  "submitVersion",
  "rotateSecret",
  "ownedApp",
  "ownedApps",
  "triableApp",
  "listApps",
  "review",
  "setAppEnabled",
  "storeAppCredential",
  "appCredential",
  "catalog",
  "putCatalog",
  "editCatalog",
  "catalogEntries",
  "bindApp",
  "catalogProposals",
  "policy",
  "policyForAdmin",
  "putPolicy",
  "exportConfig",
  "diffConfig",
  "importConfig",
  "queryAudit",
  "userAudit",
  "userErased",
] as const;
/** Public for the object's own use and for tests' direct stubs, in no caller's surface. */
export const TENANT_INTERNAL = ["spend", "modelConfig", "audit", "readAudit"] as const;

export type TenantAuth = Pick<TenantDO, (typeof TENANT_AUTH)[number]>;
export type TenantServing = Pick<TenantDO, (typeof TENANT_SERVING)[number]>;
export type TenantAdmin = Pick<TenantDO, (typeof TENANT_ADMIN)[number]>;

/** The stub with only `methods` readable: a method outside them is undefined, so a call to it throws. */
function narrowed(stub: object, methods: readonly string[]): object {
  const allowed = new Set(methods);
  return new Proxy(stub, {
    get(target, prop) {
      if (typeof prop === "string" && !allowed.has(prop)) return undefined;
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      // Called on the stub itself (an RPC method is a proxy: `.apply` would name a remote method).
      return (...args: unknown[]) => Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
    },
  });
}

const tenantStub = (env: Bindings, tenantId: string, methods: readonly string[]) =>
  narrowed(counted("TenantDO", env.TENANT.getByName(tenantObjectName(tenantId)), count(env)), methods);

export const tenantAuth = (env: Bindings, tenantId: string): Rpc<TenantAuth> =>
  rpc<TenantAuth>(tenantStub(env, tenantId, TENANT_AUTH));

export const tenantServing = (env: Bindings, tenantId: string): Rpc<TenantServing> =>
  rpc<TenantServing>(tenantStub(env, tenantId, TENANT_SERVING));

export const tenantAdmin = (env: Bindings, tenantId: string): Rpc<TenantAdmin> =>
  rpc<TenantAdmin>(tenantStub(env, tenantId, TENANT_ADMIN));

export const artifactsStub = (env: Bindings, tenantId: string, userId: string): Rpc<ArtifactsDO> =>
  rpc<ArtifactsDO>(
    counted("ArtifactsDO", env.ARTIFACTS.getByName(artifactsObjectName(tenantId, userId)), count(env)),
  );

export const spokeStub = (env: Bindings, tenantId: string, userId: string, appId: string): Rpc<SpokeDO> =>
  rpc<SpokeDO>(counted("SpokeDO", env.SPOKE.getByName(spokeObjectName(tenantId, userId, appId)), count(env)));

export const hubStub = (env: Bindings, tenantId: string, sessionId: string): Rpc<HubDO> =>
  rpc<HubDO>(counted("HubDO", env.HUB.getByName(hubObjectName(tenantId, sessionId)), count(env)));
