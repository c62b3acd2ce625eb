import type { CatalogEntry } from "../../apps/catalog.ts";
import type { ServingAppInfo } from "../../contracts.ts";
import type { ModelConfig, ModelRole } from "../../llm/index.ts";
import { secretBinding } from "../../mcp/auth.ts";
import type { Policy } from "../../policy/index.ts";
import { randomId } from "../crypto.ts";
import type { Sql } from "../sql.ts";
import { catalogVersion, currentCatalog, type LiveBindings } from "./catalog-store.ts";
import { revokedKeyIds } from "./keys.ts";
import type { StoredPolicy } from "./policy-store.ts";
import { registryRevision } from "./registry.ts";
import { type HeldApp, held, servingApps } from "./serving.ts";

/** What planning reads: the policy, the catalog, and serving apps with their live bindings. */
export interface PlanningView {
  policy: Policy;
  catalog: CatalogEntry[];
  apps: ServingAppInfo[];
}

/**
 * What hubs and spokes read of their tenant, in one versioned value: the planning view, every
 * serving app with its secrets (a spoke's call), and each role's model with its key opened. Isolates
 * hold it for a bounded time (tenant-replica/), so no step of a query asks the tenant's one object.
 */
export interface ServingState {
  policyVersion: number;
  view: PlanningView;
  apps: HeldApp[];
  models: Record<ModelRole, ModelConfig>;
  /**
   * The opened secret each serving MCP app is reached with, by `${appId} ${boundTo}` (the URL it
   * was given for, mcp/auth.ts secretBinding): a spoke's call needs no trip to the tenant for it.
   */
  credentials: Record<string, string>;
  /** Revoked keys' ids: the user tokens and consent links they issued are refused at the edge. */
  revokedKeys: string[];
}

/** Where `credentials` holds an app's secret. */
export const credentialKey = (appId: string, boundTo: string) => `${appId} ${boundTo}`;

/**
 * The planning view, worked out again only when what it is made from moves: the policy's version,
 * the catalog's, or the registry's revision (decoding the catalog and checking each binding against
 * it took a share of every planning). Its stamp names those and this object's life, since the
 * revision restarts with the object, so a replica that holds the state of a stamp is sent the stamp.
 * Models change only with a policy version (a key is written with its policy), so the stamp covers them.
 */
export class PlanningViews {
  private readonly life = randomId("life", 8);
  private held: { stamp: string; view: PlanningView } | null = null;

  current(sql: Sql, stored: StoredPolicy, live: LiveBindings): { stamp: string; view: PlanningView } {
    const stamp = `${this.life}:${stored.version}:${catalogVersion(sql)}:${registryRevision(sql)}`;
    if (this.held?.stamp !== stamp) {
      const catalog = currentCatalog(sql).entries;
      this.held = {
        stamp,
        view: { policy: stored.policy, catalog, apps: live.only(servingApps(sql), catalog) },
      };
    }
    return this.held;
  }
}

/**
 * The serving state for the stamp `PlanningViews.current` gives, with `models` resolved by the
 * caller and each serving MCP app's secret opened by `open` for the URL its version names.
 */
export async function servingState(
  sql: Sql,
  made: { stored: StoredPolicy; view: PlanningView; models: Record<ModelRole, ModelConfig> },
  open: (appId: string, boundTo: string) => Promise<string | null>,
): Promise<ServingState> {
  const apps = held(sql);
  const credentials: Record<string, string> = {};
  for (const { app } of apps) {
    const mcp = app.manifest.mcp;
    const boundTo = mcp && secretBinding(mcp.auth, mcp.url);
    const secret = boundTo ? await open(app.appId, boundTo) : null;
    if (boundTo && secret !== null) credentials[credentialKey(app.appId, boundTo)] = secret;
  }
  const { stored, view, models } = made;
  return { policyVersion: stored.version, view, apps, models, credentials, revokedKeys: revokedKeyIds(sql) };
}
