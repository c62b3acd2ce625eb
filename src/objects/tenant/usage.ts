import type { Sql } from "../sql.ts";

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

export function usedToday(sql: Sql, kind: QuotaKind): number {
  return (
    sql<{ used: number }>`SELECT used FROM usage WHERE day = ${today()} AND kind = ${kind}`[0]?.used ?? 0
  );
}

/** Counts `amount` if it fits under `limit` today; refuses (counting nothing) if it does not. */
export function spend(sql: Sql, kind: QuotaKind, amount: number, limit: number): QuotaCheck {
  if (usedToday(sql, kind) + amount > limit) return refused(kind, limit);
  record(sql, kind, amount);
  return { ok: true };
}

/** Whether any of today's quota is left (for model tokens: counted after each call, by what it used). */
export function left(sql: Sql, kind: QuotaKind, limit: number): QuotaCheck {
  return usedToday(sql, kind) < limit ? { ok: true } : refused(kind, limit);
}

export function record(sql: Sql, kind: QuotaKind, amount: number): void {
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
