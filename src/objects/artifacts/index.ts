import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.ts";
import { migrate, schemaVersion } from "../sql.ts";

const MIGRATIONS = [`CREATE TABLE artifacts (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)`];

/** One per (tenant, user): the labeled vault of artifacts and permanent grants (a later issue). */
export class ArtifactsDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, MIGRATIONS);
  }

  /** The schema version this object's storage is at; lets tests and ops see the object is live. */
  schemaVersion(): number {
    return schemaVersion(this.ctx.storage);
  }
}
