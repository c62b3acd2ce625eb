import type { SpokeCall } from "../../contracts.ts";
import type { Sql } from "../sql.ts";

/** The spoke's one owner row (the `owner` table); `indexed` is set once the user's index names it (#34). */
export type Owner = { tenant_id: string; user_id: string; app_id: string; indexed: number };
export type OwnerKey = Pick<SpokeCall, "tenantId" | "userId" | "appId">;
export const ownerOf = (o: Owner): OwnerKey => ({
  tenantId: o.tenant_id,
  userId: o.user_id,
  appId: o.app_id,
});

/** Who a spoke serves: one (tenant, user, app), written once; cleared only by an erasure. */
export class SpokeOwner {
  private readonly sql: Sql;
  private row: Owner | undefined;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** The owner row, read once per instance (written once; cleared only by an erasure). */
  stored(): Owner | undefined {
    this.row ??= this.sql<Owner>`SELECT * FROM owner`[0];
    return this.row;
  }

  /** A spoke serves exactly one (tenant, user, app); a call naming another is a bug, refused loudly. */
  bind(call: OwnerKey): void {
    // Read once per instance: the owner row is written once and never changes.
    this.row ??= this.sql<Owner>`SELECT * FROM owner`[0];
    const owner = this.row;
    if (!owner) {
      this
        .sql`INSERT INTO owner (tenant_id, user_id, app_id) VALUES (${call.tenantId}, ${call.userId}, ${call.appId})`;
      this.row = { tenant_id: call.tenantId, user_id: call.userId, app_id: call.appId, indexed: 0 };
    } else if (
      owner.tenant_id !== call.tenantId ||
      owner.user_id !== call.userId ||
      owner.app_id !== call.appId
    ) {
      throw new Error("spoke called for another tenant, user or app");
    }
  }

  /** Whether the user's index names this spoke (as read with the row). */
  indexed(): boolean {
    return Boolean(this.row?.indexed);
  }

  markIndexed(): void {
    this.sql`UPDATE owner SET indexed = 1`;
    if (this.row) this.row.indexed = 1;
  }

  /** Drops the row: a later use binds afresh. */
  forget(): void {
    this.sql`DELETE FROM owner`;
    this.row = undefined;
  }
}
