import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.ts";
import { migrate, schemaVersion } from "../sql.ts";

const MIGRATIONS = [`CREATE TABLE interactions (id TEXT PRIMARY KEY, at TEXT NOT NULL)`];

/** One per (tenant, user, app): the only caller of the app endpoint, and the app's memory (a later issue). */
export class SpokeDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, MIGRATIONS);
  }

  /** The schema version this object's storage is at; lets tests and ops see the object is live. */
  schemaVersion(): number {
    return schemaVersion(this.ctx.storage);
  }
}
