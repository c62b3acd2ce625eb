import type { Sql } from "../sql.ts";
import { WriteBehind } from "../write-behind.ts";

/**
 * The tenant's daily quotas, kept in exact counters: one row per (UTC day, kind). The TenantDO is
 * single-threaded, so a check and its increment cannot interleave with another request's.
 */
export const USAGE_MIGRATIONS = [
  `CREATE TABLE usage (day TEXT NOT NULL, kind TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (day, kind))`,
];

export const QUOTA_KINDS = ["queries", "model_tokens", "app_calls"] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

export type QuotaCheck =
  | { ok: true }
  | { ok: false; quota: QuotaKind; limit: number; retryAfterSeconds: number };

const today = (now = new Date()) => now.toISOString().slice(0, 10);

function usedToday(sql: Sql, kind: QuotaKind): number {
  return (
    sql<{ used: number }>`SELECT used FROM usage WHERE day = ${today()} AND kind = ${kind}`[0]?.used ?? 0
  );
}

/**
 * Today's counters over one tenant object's storage. An increment is written just after the reply
 * (write-behind.ts) and read, until then, from `pending`: a check never writes, so its reply waits on
 * no commit, and counts stay exact; only a crash between a reply and its commit can forget one (a few
 * uses let through, never a refusal in error).
 */
export class Counters {
  private readonly behind = new WriteBehind();
  private readonly pending = new Map<QuotaKind, number>();
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** Counts `amount` if it fits under `limit` today; refuses (counting nothing) if it does not. */
  spend(kind: QuotaKind, amount: number, limit: number): QuotaCheck {
    if (this.used(kind) + amount > limit) return refused(kind, limit);
    this.record(kind, amount);
    return { ok: true };
  }

  /** Whether any of today's quota is left (for model tokens: counted after each call, by what it used). */
  left(kind: QuotaKind, limit: number): QuotaCheck {
    return this.used(kind) < limit ? { ok: true } : refused(kind, limit);
  }

  record(kind: QuotaKind, amount: number): void {
    if (amount <= 0) return;
    if (!this.pending.has(kind)) {
      this.behind.defer(() => {
        const total = this.pending.get(kind) ?? 0;
        this.pending.delete(kind);
        record(this.sql, kind, total);
      });
    }
    this.pending.set(kind, (this.pending.get(kind) ?? 0) + amount);
  }

  private used(kind: QuotaKind): number {
    return usedToday(this.sql, kind) + (this.pending.get(kind) ?? 0);
  }
}

function record(sql: Sql, kind: QuotaKind, amount: number): void {
  if (amount <= 0) return;
  sql`INSERT INTO usage (day, kind, used) VALUES (${today()}, ${kind}, ${amount})
      ON CONFLICT (day, kind) DO UPDATE SET used = used + excluded.used`;
  // Yesterday's counters are no longer read: keep a week for the operator, then let them go.
  sql`DELETE FROM usage WHERE day < ${today(new Date(Date.now() - 7 * 86_400_000))}`;
}

function refused(kind: QuotaKind, limit: number): QuotaCheck {
  const midnight = new Date();
  midnight.setUTCHours(24, 0, 0, 0);
  return {
    ok: false,
    quota: kind,
    limit,
    retryAfterSeconds: Math.ceil((midnight.getTime() - Date.now()) / 1000),
  };
}
