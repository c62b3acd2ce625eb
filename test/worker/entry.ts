/**
 * The Worker as the workers test project runs it (vitest.config.ts `main`): the production entry,
 * with the hub replaced by a subclass carrying the tests' hooks. Production's HubDO has one, keyed
 * by a symbol so that no RPC stub can call it.
 */
import { randomId } from "../../src/objects/crypto.ts";
import { HubDO as ProductionHubDO, STEP_QUERY } from "../../src/objects/hub/index.ts";
import type { QueryView } from "../../src/objects/hub/view.ts";

export { ArtifactsDO, default, SpokeDO, TenantDO } from "../../src/worker/index.ts";

export class HubDO extends ProductionHubDO {
  /** Identifies this in-memory instance: a new one after every eviction or restart. */
  private readonly instance = randomId("inst", 6);

  /** One step of one query, on demand: how tests drive a query started with `stepping: "manual"`. */
  async advance(queryId: string): Promise<QueryView | null> {
    if (!(await this[STEP_QUERY](queryId))) return null;
    return this.query(queryId);
  }

  instanceId(): string {
    return this.instance;
  }
}
