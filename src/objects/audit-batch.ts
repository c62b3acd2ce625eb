import type { AuditType } from "../audit-types.ts";

/**
 * Audit rows batched per isolate and per tenant, so an event costs no call to the tenant-wide
 * TenantDO of its own: rows are stamped where the event happens (`at`), buffered, and shipped as
 * one `TenantDO.appendAudit(rows)` per batch. Pure: the shipment, the clock and the timer are given.
 *
 * - A batch ships `delayMs` after its first row, or at once when it reaches `maxRows` rows or
 *   `maxChars` characters of detail.
 * - One shipment per tenant at a time from an isolate, so its rows reach the log in the order they
 *   were written (the log's `seq`); rows of different isolates interleave by arrival, each keeping
 *   its own event time.
 * - Nothing here throws to a writer: a failed shipment is tried once more, then logged with its
 *   rows' types (never dropped in silence).
 *
 * Loss bound: rows still buffered when their isolate dies (killed, or out of CPU or memory) before
 * the flush are lost: at most `delayMs` of one tenant's rows from that isolate (and at most the
 * rows one failed shipment carried, logged). An isolate that ends normally finishes its flushes
 * under the writers' `waitUntil`.
 *
 * Every wait is on the caller's own timer, never on a promise another request started: the Workers
 * runtime cancels a request that awaits I/O of another request's context as hung. So each write's
 * promise sleeps on its own timer, then ships whatever is buffered by then (the first to wake takes
 * the batch, the others find it gone), and a flush waits for an earlier shipment by polling.
 */

export interface AuditRow {
  /** When the event happened, where it happened (ISO time). */
  at: string;
  type: AuditType;
  detail: Record<string, unknown>;
}

/** Sends one batch of one tenant's rows to its log (TenantDO.appendAudit); may fail. */
export type Ship = (rows: AuditRow[]) => Promise<unknown>;

export interface BatchOptions {
  /** How long a row waits for others before its batch ships. */
  delayMs: number;
  maxRows: number;
  /** Detail characters (JSON) that ship a batch early, so a shipment stays a modest RPC. */
  maxChars: number;
  /** How long a flush waits for this isolate's earlier shipment of the tenant before shipping anyway. */
  maxWaitMs: number;
  pollMs: number;
  sleep(ms: number): Promise<void>;
  now(): number;
  /** Where a lost batch is reported (console.error in production). */
  report(message: string, error: unknown): void;
}

export const AUDIT_BATCH_DEFAULTS: BatchOptions = {
  delayMs: 1_000,
  maxRows: 100,
  maxChars: 256_000,
  maxWaitMs: 5_000,
  pollMs: 10,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
  report: (message, error) => console.error(message, error),
};

interface Buffer {
  /** Each row with, for a row written at once, what hears its own shipment's outcome. */
  rows: Array<{ row: AuditRow; chars: number; shipped?: (written: boolean) => void }>;
  chars: number;
  /** The latest writer's shipment: it names the tenant's object from env, in whichever context runs it. */
  ship: Ship;
  shipping: boolean;
}

export class AuditBatcher {
  private readonly buffers = new Map<string, Buffer>();
  private readonly o: BatchOptions;

  constructor(options: Partial<BatchOptions> = {}) {
    this.o = { ...AUDIT_BATCH_DEFAULTS, ...options };
  }

  /**
   * Buffers a row for `tenant`'s log. The promise (which never rejects) settles once the row is
   * shipped or reported lost: a caller keeps it alive with `waitUntil` and need not await it.
   */
  async write(tenant: string, ship: Ship, type: AuditType, detail: Record<string, unknown>): Promise<void> {
    const full = this.add(tenant, ship, type, detail);
    if (!full) {
      try {
        await this.o.sleep(this.o.delayMs);
      } catch (error) {
        this.o.report("audit: a batch's timer failed; shipping now", error);
      }
    }
    await this.flush(tenant);
  }

  /**
   * Ships a row at once, with the rows this isolate buffered for the tenant before it (so the log's
   * order holds), for an event that must be in the log before the caller answers. Says whether it
   * was written; never rejects.
   */
  async writeNow(
    tenant: string,
    ship: Ship,
    type: AuditType,
    detail: Record<string, unknown>,
  ): Promise<boolean> {
    // Its own shipment's outcome, whichever flush carries it: another caller's flush may take the
    // row into a batch that then fails, while this flush finds nothing left and reports success.
    let outcome: boolean | undefined;
    this.add(tenant, ship, type, detail, (written) => {
      outcome = written;
    });
    await this.flush(tenant);
    return outcome ?? false; // still in a shipment past the flush's deadline: not known written
  }

  /**
   * Ships what this isolate holds for `tenant` (every tenant without one) and waits for its shipments
   * in flight: once it settles, every row written here before the call is in the log or reported
   * lost. Says whether all of them were written.
   */
  async flush(tenant?: string): Promise<boolean> {
    if (tenant === undefined) {
      const done = await Promise.all([...this.buffers.keys()].map((t) => this.flush(t)));
      return done.every(Boolean);
    }
    let written = true;
    try {
      const buffer = this.buffers.get(tenant);
      if (!buffer) return true;
      const deadline = this.o.now() + this.o.maxWaitMs;
      for (;;) {
        while (buffer.shipping && this.o.now() < deadline) await this.o.sleep(this.o.pollMs);
        if (buffer.rows.length === 0) break;
        const batch = buffer.rows.splice(0, this.o.maxRows);
        buffer.chars -= batch.reduce((sum, r) => sum + r.chars, 0);
        buffer.shipping = true;
        try {
          const shipped = await this.shipOnce(
            buffer.ship,
            batch.map((r) => r.row),
          );
          for (const r of batch) r.shipped?.(shipped);
          written = shipped && written;
        } finally {
          buffer.shipping = false;
        }
      }
      if (!buffer.shipping && buffer.rows.length === 0 && this.buffers.get(tenant) === buffer)
        this.buffers.delete(tenant);
    } catch (error) {
      // Only a broken clock or timer lands here; the rows stay buffered for the next flush.
      this.o.report("audit: a flush failed", error);
      written = false;
    }
    return written;
  }

  /** Rows buffered and not yet shipped, per tenant (for tests and metrics). */
  pending(): Record<string, number> {
    return Object.fromEntries([...this.buffers].map(([t, b]) => [t, b.rows.length]));
  }

  /** Adds the row; says whether its batch is full and ships now. */
  private add(
    tenant: string,
    ship: Ship,
    type: AuditType,
    detail: Record<string, unknown>,
    shipped?: (written: boolean) => void,
  ): boolean {
    const row: AuditRow = { at: new Date(this.o.now()).toISOString(), type, detail };
    let chars = 0;
    try {
      chars = JSON.stringify(detail)?.length ?? 0;
    } catch {
      // An unserialisable detail: the shipment's own encoding decides (and reports) its fate.
    }
    let buffer = this.buffers.get(tenant);
    if (!buffer) {
      buffer = { rows: [], chars: 0, ship, shipping: false };
      this.buffers.set(tenant, buffer);
    }
    buffer.ship = ship;
    buffer.rows.push({ row, chars, ...(shipped && { shipped }) });
    buffer.chars += chars;
    return buffer.rows.length >= this.o.maxRows || buffer.chars >= this.o.maxChars;
  }

  /** One shipment, tried once more on failure; a batch that fails twice is reported, never dropped silently. */
  private async shipOnce(ship: Ship, rows: AuditRow[]): Promise<boolean> {
    let last: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await ship(rows);
        return true;
      } catch (error) {
        last = error;
      }
    }
    const types = [...new Set(rows.map((r) => r.type))].join(", ");
    this.o.report(`audit: ${rows.length} event(s) were not written (${types})`, last);
    return false;
  }
}
