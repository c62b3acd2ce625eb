import { JOIN_MS, joinFor } from "../join.ts";
import type { QuotaCheck, QuotaKind } from "../tenant/usage.ts";

/** Today's counts of every quota kind. */
export type Totals = Record<QuotaKind, number>;

/** What a ledger asks of the tenant's counters (the TenantDO, over RPC). */
export interface LedgerPort {
  /** Adds `counts` to `day`'s counters; answers the day's totals, the counts included. */
  flush(day: string, counts: Partial<Totals>): Promise<Totals>;
  /**
   * Near a limit: adds `counts`, then spends `amount` of `kind` exactly under the tenant's own limit
   * (amount 0: whether any is left) and answers that check with the totals.
   */
  exact(
    day: string,
    counts: Partial<Totals>,
    kind: QuotaKind,
    amount: number,
  ): Promise<{ check: QuotaCheck; totals: Totals }>;
}

export interface LedgerClock {
  now(): number;
  /** The UTC day a count belongs to. */
  today(): string;
  /** Runs `fn` in `ms` (setTimeout); its promise is what a caller keeps alive with `waitUntil`. */
  later(ms: number, fn: () => Promise<void>): Promise<void>;
}

/** How long a counted unit may wait in an isolate before it is sent: the batch's age bound. */
export const FLUSH_MS = 1_000;
/** How long a refusal is answered here without asking again: an exhausted tenant is not a hot spot. */
export const REFUSAL_HOLD_MS = 1_000;

const zero = (): Totals => ({ queries: 0, model_tokens: 0, app_calls: 0, plain_calls: 0 });
const KINDS = Object.keys(zero()) as QuotaKind[];

/**
 * One tenant's daily quotas as one isolate counts them: units are admitted here and sent to the
 * tenant's counters in batches (at `batch[kind]` units or FLUSH_MS, whichever comes first), so a
 * query's admission, its app calls and its model tokens cost no call to the tenant's one object.
 *
 * Admission here is "fast" only far from the limit: while the tenant's total as last learnt, plus
 * this isolate's units not yet acknowledged, plus the unit asked for, stay at least a batch below the
 * limit, and while fewer than a batch of units are unacknowledged (else the spend waits for the
 * flush under way). Closer than that, each spend asks the tenant's counters exactly, as before.
 *
 * The overshoot bound: each isolate admits at most `batch[kind]` units the tenant has not
 * acknowledged, and stops admitting fast a batch before the limit as it last learnt it, so with I
 * isolates counting for one tenant a day's count passes its limit by less than I × batch[kind]
 * (model tokens, counted after each call, by that plus one call's own). One isolate alone never
 * passes it. Units an isolate holds when it dies (at most a batch, at most FLUSH_MS old) are not
 * counted: the same bound, in the tenant's favour. While the tenant's object cannot be reached an
 * isolate admits at most a batch on its own, then every spend is exact and fails. A batch the
 * tenant applied but whose answer was lost is sent again and counted twice: against the tenant.
 */
export class UsageLedger {
  private day: string;
  /** The tenant's totals as its last answer gave them (they only grow within a day). */
  private known = zero();
  /** Sent, not yet acknowledged. */
  private sending = zero();
  /** Admitted here, not yet sent. */
  private pending = zero();
  private timer: Promise<void> | null = null;
  /** Batches sent and not yet answered (a flush never rejects: a failure keeps its counts). */
  private readonly sends = new Set<Promise<void>>();
  private readonly refusals = new Map<QuotaKind, { until: number; limit: number; check: QuotaCheck }>();
  private readonly port: LedgerPort;
  private readonly batch: Totals;
  private readonly clock: LedgerClock;

  constructor(port: LedgerPort, batch: Totals, clock: LedgerClock) {
    this.port = port;
    this.batch = batch;
    this.clock = clock;
    this.day = clock.today();
  }

  /** Spends `amount` of `kind` under `limit` (the policy's, as this isolate holds it), or refuses. */
  async spend(kind: QuotaKind, amount: number, limit: number): Promise<QuotaCheck> {
    for (let waited = false; ; waited = true) {
      this.roll();
      const held = this.heldRefusal(kind, limit);
      if (held) return held;
      const own = this.sending[kind] + this.pending[kind];
      if (this.known[kind] + own + amount + this.batch[kind] > limit) return this.exactly(kind, amount);
      if (own === 0 || own + amount <= this.batch[kind]) {
        this.pending[kind] += amount;
        this.counted(kind);
        return { ok: true };
      }
      // A batch unacknowledged: wait once for a send's answer, for a bounded time (join.ts: the
      // send may be another request's, cancelled). Still a batch out after it (the tenant did not
      // answer), this spend is exact: while the tenant cannot be reached, an isolate admits at
      // most a batch on its own.
      if (waited) return this.exactly(kind, amount);
      if (this.sends.size === 0) void this.flush();
      const sent = Promise.race([...this.sends]).catch(() => undefined);
      if (!(await joinFor(sent, JOIN_MS))) return this.exactly(kind, amount);
    }
  }

  /** Whether any of today's `kind` is left (model tokens: counted after each call by `record`). */
  async left(kind: QuotaKind, limit: number): Promise<QuotaCheck> {
    this.roll();
    const held = this.heldRefusal(kind, limit);
    if (held) return held;
    const own = this.sending[kind] + this.pending[kind];
    if (this.known[kind] + own + this.batch[kind] < limit) return { ok: true };
    return this.exactly(kind, 0);
  }

  /** Counts what a call used, after it (model tokens). */
  record(kind: QuotaKind, amount: number): void {
    if (amount <= 0) return;
    this.roll();
    this.pending[kind] += amount;
    this.counted(kind);
  }

  /** Nothing held here that the tenant has not acknowledged: the ledger may be dropped. */
  idle(): boolean {
    return KINDS.every((kind) => this.pending[kind] === 0 && this.sending[kind] === 0);
  }

  /** The batch being sent or waiting for its timer: what a caller keeps alive (`waitUntil`). */
  settled(): Promise<void> {
    return Promise.all([this.timer, ...this.sends]).then(() => undefined);
  }

  /** Sends every unit held now (the timer's job; tests and a shutting-down caller call it too). */
  async flush(): Promise<void> {
    const day = this.day;
    const counts = this.take();
    if (!counts) return;
    const sent = (async () => {
      try {
        this.learn(day, await this.port.flush(day, counts));
      } catch (error) {
        if (this.day === day) add(this.pending, counts); // sent again with the next batch
        console.error("usage: a batch of counts was not acknowledged; kept for the next", error);
      } finally {
        if (this.day === day) subtract(this.sending, counts);
      }
    })();
    this.sends.add(sent);
    await sent;
    this.sends.delete(sent);
  }

  private async exactly(kind: QuotaKind, amount: number): Promise<QuotaCheck> {
    const day = this.day;
    const counts = this.take() ?? {};
    try {
      const { check, totals } = await this.port.exact(day, counts, kind, amount);
      this.learn(day, totals);
      if (!check.ok && check.details) {
        const { limit } = check.details;
        this.refusals.set(kind, { until: this.clock.now() + REFUSAL_HOLD_MS, limit, check });
      }
      return check;
    } catch (error) {
      if (this.day === day) add(this.pending, counts);
      throw error;
    } finally {
      if (this.day === day) subtract(this.sending, counts);
    }
  }

  /** A refusal the tenant gave for this limit less than REFUSAL_HOLD_MS ago. */
  private heldRefusal(kind: QuotaKind, limit: number): QuotaCheck | null {
    const held = this.refusals.get(kind);
    if (!held) return null;
    if (held.until > this.clock.now() && held.limit === limit) return held.check;
    this.refusals.delete(kind);
    return null;
  }

  /** Moves what is pending to what is being sent; null when there is nothing. */
  private take(): Partial<Totals> | null {
    const counts: Partial<Totals> = {};
    for (const kind of KINDS) if (this.pending[kind] > 0) counts[kind] = this.pending[kind];
    if (!Object.keys(counts).length) return null;
    add(this.sending, counts);
    this.pending = zero();
    return counts;
  }

  private learn(day: string, totals: Totals): void {
    if (this.day !== day) return;
    for (const kind of KINDS) this.known[kind] = Math.max(this.known[kind], totals[kind]);
  }

  /** A unit counted: sent at once at a batch, else within FLUSH_MS. */
  private counted(kind: QuotaKind): void {
    if (this.pending[kind] >= this.batch[kind]) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = this.clock.later(FLUSH_MS, async () => {
        this.timer = null;
        await this.flush();
      });
    }
  }

  /** At midnight (UTC) yesterday's units go out under yesterday, and counting starts again. */
  private roll(): void {
    const today = this.clock.today();
    if (today === this.day) return;
    void this.flush(); // takes this.day and the counts before the switch below
    this.day = today;
    this.known = zero();
    this.sending = zero();
    this.refusals.clear();
  }
}

function add(into: Totals, counts: Partial<Totals>): void {
  for (const kind of KINDS) into[kind] += counts[kind] ?? 0;
}

function subtract(from: Totals, counts: Partial<Totals>): void {
  for (const kind of KINDS) from[kind] = Math.max(0, from[kind] - (counts[kind] ?? 0));
}
