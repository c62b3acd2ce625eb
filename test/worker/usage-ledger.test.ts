/**
 * The usage ledger (src/objects/tenant-replica/ledger.ts): quotas counted per isolate and sent in
 * batches, with its overshoot bound tested at the bound. The tenant's counters are an exact
 * in-memory fake here (a test double of TenantDO.recordUsage / spendExact), the clock a fake too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { QuotaCheck, QuotaKind } from "../../src/objects/tenant/usage.ts";
import {
  FLUSH_MS,
  type LedgerClock,
  type LedgerPort,
  type Totals,
  UsageLedger,
} from "../../src/objects/tenant-replica/ledger.ts";

const zero = (): Totals => ({ queries: 0, model_tokens: 0, app_calls: 0, plain_calls: 0 });
const BATCH: Totals = { queries: 8, app_calls: 8, plain_calls: 8, model_tokens: 1_000 };

/** The tenant's exact counters, as the TenantDO keeps them; `calls` counts round trips. */
function fakeTenant(limit: number) {
  const totals = zero();
  const state = { totals, calls: 0, exactCalls: 0 };
  const refused = (): QuotaCheck => ({
    ok: false,
    code: "quota_exceeded",
    message: "used up",
    details: { quota: "queries", limit, retryAfterSeconds: 60 },
  });
  const port: LedgerPort = {
    async flush(_day, counts) {
      state.calls++;
      for (const [k, n] of Object.entries(counts)) totals[k as QuotaKind] += n;
      return { ...totals };
    },
    async exact(_day, counts, kind, amount) {
      state.calls++;
      state.exactCalls++;
      for (const [k, n] of Object.entries(counts)) totals[k as QuotaKind] += n;
      if (amount === 0)
        return { check: totals[kind] < limit ? { ok: true } : refused(), totals: { ...totals } };
      if (totals[kind] + amount > limit) return { check: refused(), totals: { ...totals } };
      totals[kind] += amount;
      return { check: { ok: true }, totals: { ...totals } };
    },
  };
  return { state, port };
}

function fakeClock(): LedgerClock & { timers: Array<() => Promise<void>>; tick(): Promise<void>; t: number } {
  const clock = {
    t: 0,
    timers: [] as Array<() => Promise<void>>,
    now: () => clock.t,
    today: () => "2026-12-07",
    later: (_ms: number, fn: () => Promise<void>) => {
      clock.timers.push(fn);
      return Promise.resolve();
    },
    async tick() {
      clock.t += FLUSH_MS;
      const due = clock.timers.splice(0);
      for (const fn of due) await fn();
    },
  };
  return clock;
}

async function admitted(ledger: UsageLedger, n: number, limit: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await ledger.spend("queries", 1, limit)).ok) ok++;
  return ok;
}

describe("one isolate's ledger", () => {
  it("sends a batch, not a call per unit, far from the limit", async () => {
    const { state, port } = fakeTenant(10_000);
    const ledger = new UsageLedger(port, BATCH, fakeClock());
    expect(await admitted(ledger, 80, 10_000)).toBe(80);
    await ledger.flush();
    expect(state.totals.queries).toBe(80);
    expect(state.calls).toBe(10); // 80 units in batches of 8
  });

  it("sends what is under a batch within FLUSH_MS", async () => {
    const { state, port } = fakeTenant(10_000);
    const clock = fakeClock();
    const ledger = new UsageLedger(port, BATCH, clock);
    await admitted(ledger, 3, 10_000);
    expect(state.totals.queries).toBe(0);
    await clock.tick();
    expect(state.totals.queries).toBe(3);
  });

  it("never passes the limit alone: near it every spend is exact", async () => {
    for (const limit of [0, 1, 2, 7, 8, 9, 16, 17, 100]) {
      const { state, port } = fakeTenant(limit);
      const ledger = new UsageLedger(port, BATCH, fakeClock());
      expect(await admitted(ledger, limit + 20, limit)).toBe(limit);
      await ledger.flush();
      expect(state.totals.queries).toBe(limit);
    }
  });

  it("answers a refusal it was just given without asking again, until REFUSAL_HOLD_MS passes", async () => {
    const { state, port } = fakeTenant(2);
    const clock = fakeClock();
    const ledger = new UsageLedger(port, BATCH, clock);
    await admitted(ledger, 3, 2);
    const calls = state.exactCalls;
    expect(await admitted(ledger, 50, 2)).toBe(0);
    expect(state.exactCalls).toBe(calls);
    await clock.tick();
    await admitted(ledger, 1, 2);
    expect(state.exactCalls).toBe(calls + 1);
  });

  it("keeps a batch the tenant did not acknowledge, and sends it with the next", async () => {
    const { state, port } = fakeTenant(10_000);
    let fail = true;
    const flaky: LedgerPort = {
      flush: (day, counts) => (fail ? Promise.reject(new Error("connection lost")) : port.flush(day, counts)),
      exact: port.exact,
    };
    const ledger = new UsageLedger(flaky, BATCH, fakeClock());
    const errors = console.error;
    console.error = () => {};
    try {
      await admitted(ledger, 8, 10_000);
      await ledger.flush();
    } finally {
      console.error = errors;
    }
    fail = false;
    await ledger.flush();
    expect(state.totals.queries).toBe(8);
  });
});

describe("a tenant that cannot be reached", () => {
  it("gets at most a batch admitted by an isolate on its own, then every spend asks and fails", async () => {
    const down: LedgerPort = {
      flush: () => Promise.reject(new Error("Network connection lost.")),
      exact: () => Promise.reject(new Error("Network connection lost.")),
    };
    const ledger = new UsageLedger(down, BATCH, fakeClock());
    const errors = console.error;
    console.error = () => {};
    let admittedNow = 0;
    let failed = 0;
    try {
      for (let i = 0; i < 50; i++) {
        try {
          if ((await ledger.spend("queries", 1, 10_000)).ok) admittedNow++;
        } catch {
          failed++;
        }
      }
    } finally {
      console.error = errors;
    }
    // Control: the tenant reachable, the same 50 spends are all admitted (the first test above).
    expect(admittedNow).toBe(BATCH.queries);
    expect(failed).toBe(50 - BATCH.queries);
  });
});

describe("the overshoot bound: fewer than isolates × batch units past the limit", () => {
  /** Isolates spending in an order fast-check picks, each flush answered before the next spend or late. */
  const schedule = fc.record({
    isolates: fc.integer({ min: 1, max: 6 }),
    limit: fc.integer({ min: 0, max: 200 }),
    order: fc.array(fc.nat(), { minLength: 50, maxLength: 400 }),
    ticks: fc.array(fc.boolean(), { minLength: 50, maxLength: 400 }),
  });

  async function overshoot(
    s: { isolates: number; limit: number; order: number[]; ticks: boolean[] },
    batch: Totals,
    nearLimitExact = true,
  ): Promise<number> {
    const { state, port } = fakeTenant(s.limit);
    const clocks = Array.from({ length: s.isolates }, () => fakeClock());
    const ledgers = clocks.map((c) => new UsageLedger(port, batch, c));
    let admittedTotal = 0;
    for (const [i, pick] of s.order.entries()) {
      const k = pick % s.isolates;
      // The control: every spend fast, as if the ledger never asked near the limit.
      const limit = nearLimitExact ? s.limit : Number.MAX_SAFE_INTEGER;
      if ((await ledgers[k]!.spend("queries", 1, limit)).ok) admittedTotal++;
      if (s.ticks[i]) await clocks[k]!.tick();
    }
    for (const l of ledgers) await l.flush();
    expect(state.totals.queries).toBe(admittedTotal); // nothing admitted is lost from the count
    return admittedTotal - s.limit;
  }

  it("holds for every interleaving fast-check finds", async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async (s) => {
        expect(await overshoot(s, BATCH)).toBeLessThan(s.isolates * BATCH.queries);
      }),
      { numRuns: 200 },
    );
  });

  it("is reached closely when every isolate learns the same total and spends a batch", async () => {
    // Six isolates each learn a total two batches below the limit (a unit spent and sent), then
    // each spends a batch the others have not seen.
    const isolates = 6;
    const limit = 100;
    const { state, port } = fakeTenant(limit);
    const ledgers = Array.from({ length: isolates }, () => new UsageLedger(port, BATCH, fakeClock()));
    state.totals.queries = limit - 2 * BATCH.queries - isolates;
    for (const l of ledgers) {
      await admitted(l, 1, limit);
      await l.flush();
    }
    let admittedNow = 0;
    for (const l of ledgers) admittedNow += await admitted(l, BATCH.queries, limit);
    for (const l of ledgers) await l.flush();
    const over = state.totals.queries - limit;
    expect(admittedNow).toBe(isolates * BATCH.queries);
    expect(over).toBe((isolates - 2) * BATCH.queries);
    expect(over).toBeLessThan(isolates * BATCH.queries);
  });

  it("control: without the near-limit exact spends the count runs far past the limit", async () => {
    const s = { isolates: 2, limit: 20, order: Array.from({ length: 200 }, (_, i) => i), ticks: [] };
    expect(await overshoot(s, BATCH, false)).toBeGreaterThan(s.isolates * BATCH.queries);
  });
});
