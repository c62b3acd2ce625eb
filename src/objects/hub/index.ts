import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.ts";
import { migrate, type Sql, schemaVersion, sqlTag } from "../sql.ts";
import { EPHEMERAL_MIGRATIONS, ephemeralId, type FunctionalityRef, resolveEphemeral } from "./ephemeral.ts";

const MIGRATIONS = [...EPHEMERAL_MIGRATIONS];

/** One per (tenant, user, session): the deterministic operator. The query lifecycle comes with the hub issue. */
export class HubDO extends DurableObject<Env> {
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS);
  }

  schemaVersion(): number {
    return schemaVersion(this.ctx.storage);
  }

  ephemeralId(ref: FunctionalityRef): string {
    return ephemeralId(this.sql, ref);
  }

  resolveEphemeral(fxId: string): FunctionalityRef | null {
    return resolveEphemeral(this.sql, fxId);
  }
}
