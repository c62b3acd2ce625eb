import type { Policy } from "../../policy/index.ts";
import { failure, type Result } from "../../result.ts";
import type { Sql } from "../sql.ts";
import { WriteBehind } from "../write-behind.ts";

/**
 * The tenant's daily quotas, kept in exact counters: one row per (UTC day, kind). The TenantDO is
 * single-threaded, so a check and its increment cannot interleave with another request's.
 */
export const USAGE_MIGRATIONS = [
  `CREATE TABLE usage (day TEXT NOT NULL, kind TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (day, kind))`,
];

export const QUOTA_KINDS = ["queries", "model_tokens", "app_calls", "plain_calls"] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];
/** The quotas counted one by one (model tokens are counted by what each call used). */
export type CountedKind = Exclude<QuotaKind, "model_tokens">;

/** Today's limit of a counted kind under the policy's quotas. */
export function dailyLimit(quotas: Policy["quotas"], kind: CountedKind): number {
  if (kind === "queries") return quotas.queriesPerDay;
  return kind === "app_calls" ? quotas.appCallsPerDay : quotas.plainCallsPerDay;
}

/** Which quota refused, its limit, and when it opens again (the next UTC day): a 429's details. */
export interface QuotaRefusal {
  quota: QuotaKind;
  limit: number;
  retryAfterSeconds: number;
}

export type QuotaCheck = Result<object, "quota_exceeded", QuotaRefusal>;

const today = (now = new Date()) => now.toISOString().slice(0, 10);

function usedToday(sql: Sql, kind: QuotaKind): number {
  return (
    sql<{ used: number }>`SELECT used FROM usage WHERE day = ${today()} AND kind = ${kind}`[0]?.used ?? 0
  );
}

/**
 * Today's counters over one tenant object's storage. An increment is written just after the reply
 * (write-behind.ts) and read, until then, from `pending`: a check never writes, so its reply waits on
 * no commit, and counts stay exact. A crash between a reply and its commit can forget one, and so can
 * a count whose call to this object failed (logged by the caller): a few uses let through, never a
 * refusal in error.
 */
export class Counters {
  private readonly behind = new WriteBehind();
  /** Counted, not yet written: by UTC day and kind, so a count made before midnight stays that day's. */
  private readonly pending = new Map<string, { day: string; kind: QuotaKind; amount: number }>();
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

  /** Counts `amount` on `day` (today unless an isolate's batch from before midnight says otherwise). */
  record(kind: QuotaKind, amount: number, day = today()): void {
    if (amount <= 0) return;
    const key = `${day} ${kind}`;
    const held = this.pending.get(key);
    if (held) {
      held.amount += amount; // its write is queued already, and takes the sum
      return;
    }
    const counted = { day, kind, amount };
    this.pending.set(key, counted);
    this.behind.defer(() => {
      this.pending.delete(key);
      record(this.sql, counted.day, kind, counted.amount);
      const base = this.written.get(key);
      if (base !== undefined) this.written.set(key, base + counted.amount);
      if (this.prunedOn !== day) {
        // Yesterday's counters are no longer read: keep a week for the operator, then let them go.
        this.sql`DELETE FROM usage WHERE day < ${today(new Date(Date.now() - 7 * 86_400_000))}`;
        this.prunedOn = day;
      }
    });
  }

  /**
   * What storage holds for today, read once per object and kept in step with each write: this
   * object is the rows' only writer, so a check costs no statement.
   */
  private readonly written = new Map<string, number>();
  private prunedOn: string | null = null;

  /** Today's count of every kind, what is queued included. */
  totals(): Record<QuotaKind, number> {
    const totals = { queries: 0, model_tokens: 0, app_calls: 0, plain_calls: 0 };
    for (const kind of QUOTA_KINDS) totals[kind] = this.used(kind);
    return totals;
  }

  private used(kind: QuotaKind): number {
    const day = today();
    const key = `${day} ${kind}`;
    let base = this.written.get(key);
    if (base === undefined) {
      for (const held of this.written.keys()) if (!held.startsWith(day)) this.written.delete(held);
      base = usedToday(this.sql, kind);
      this.written.set(key, base);
    }
    return base + (this.pending.get(key)?.amount ?? 0);
  }
}

function record(sql: Sql, day: string, kind: QuotaKind, amount: number): void {
  sql`INSERT INTO usage (day, kind, used) VALUES (${day}, ${kind}, ${amount})
      ON CONFLICT (day, kind) DO UPDATE SET used = used + excluded.used`;
}

function refused(kind: QuotaKind, limit: number): QuotaCheck {
  const midnight = new Date();
  midnight.setUTCHours(24, 0, 0, 0);
  return failure("quota_exceeded", `the tenant's daily ${kind} quota (${limit}) is used up`, {
    quota: kind,
    limit,
    retryAfterSeconds: Math.ceil((midnight.getTime() - Date.now()) / 1000),
  });
}

/**
 * The tenant's quotas as its object spends them (TenantDO.spend, recordUsage, spendExact): the
 * counters checked against the quotas of the policy in force, a refusal audited.
 */
export class TenantQuotas {
  private readonly counters: Counters;
  private readonly quotas: () => Policy["quotas"];
  private readonly refused: (detail: { quota: CountedKind; limit: number }) => void;

  constructor(
    counters: Counters,
    quotas: () => Policy["quotas"],
    refused: (detail: { quota: CountedKind; limit: number }) => void,
  ) {
    this.counters = counters;
    this.quotas = quotas;
    this.refused = refused;
  }

  /** Counts one of today's queries, app calls or plain calls, or refuses it past the tenant's quota. */
  spend(kind: CountedKind, amount: number): QuotaCheck {
    const limit = dailyLimit(this.quotas(), kind);
    const check = this.counters.spend(kind, amount, limit);
    if (!check.ok) this.refused({ quota: kind, limit });
    return check;
  }

  /** An isolate's batch of counts (tenant-replica/ledger.ts); answers today's totals. */
  record(day: string, counts: Partial<Record<QuotaKind, number>>): Record<QuotaKind, number> {
    for (const [kind, amount] of Object.entries(counts) as Array<[QuotaKind, number]>)
      this.counters.record(kind, amount, day);
    return this.counters.totals();
  }

  /** Near a limit, an isolate's batch and then one exact spend (`amount` 0: whether any is left). */
  spendExact(
    day: string,
    counts: Partial<Record<QuotaKind, number>>,
    kind: QuotaKind,
    amount: number,
  ): { check: QuotaCheck; totals: Record<QuotaKind, number> } {
    this.record(day, counts);
    const quotas = this.quotas();
    const check =
      kind === "model_tokens"
        ? this.counters.left(kind, quotas.modelTokensPerDay)
        : amount > 0
          ? this.spend(kind, amount)
          : this.counters.left(kind, dailyLimit(quotas, kind));
    return { check, totals: this.counters.totals() };
  }
}
