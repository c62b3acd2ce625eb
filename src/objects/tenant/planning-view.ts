import type { CatalogEntry } from "../../apps/catalog.ts";
import type { ServingAppInfo } from "../../contracts.ts";
import type { Policy } from "../../policy/index.ts";
import { randomId } from "../crypto.ts";
import type { Sql } from "../sql.ts";
import { catalogVersion, currentCatalog, type LiveBindings } from "./catalog-store.ts";
import type { StoredPolicy } from "./policy-store.ts";
import { registryRevision } from "./registry.ts";
import { servingApps } from "./serving.ts";

/** What planning reads: the policy, the catalog, and serving apps with their live bindings. */
export interface PlanningView {
  policy: Policy;
  catalog: CatalogEntry[];
  apps: ServingAppInfo[];
}

/**
 * The planning view, worked out again only when what it is made from moves: the policy's version,
 * the catalog's, or the registry's revision (decoding the catalog and checking each binding against
 * it took a share of every planning). Its stamp names those and this object's life, since the
 * revision restarts with the object, so a hub that holds the view of a stamp is sent only the stamp.
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
