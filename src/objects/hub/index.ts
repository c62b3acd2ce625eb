import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.ts";
import { migrate, schemaVersion } from "../sql.ts";

const MIGRATIONS = [
  `CREATE TABLE session (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL)`,
];

/** One per (tenant, user, session): the deterministic operator. Holds the query lifecycle (a later issue). */
export class HubDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, MIGRATIONS);
  }

  /** The schema version this object's storage is at; lets tests and ops see the object is live. */
  schemaVersion(): number {
    return schemaVersion(this.ctx.storage);
  }
}
