import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuditBatcher, type AuditRow, type BatchOptions } from "../../src/objects/audit-batch.ts";

/** A tenant's log as the batcher reaches it: every shipment kept, optionally slow or failing. */
function fakeLog(opts: { failures?: number; slowMs?: number } = {}) {
  const shipments: AuditRow[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let failures = opts.failures ?? 0;
  const ship = async (rows: AuditRow[]) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      if (opts.slowMs) await new Promise((r) => setTimeout(r, opts.slowMs));
      if (failures > 0) {
        failures--;
        throw new Error("tenant unreachable");
      }
      shipments.push(rows);
    } finally {
      inFlight--;
    }
  };
  return { ship, shipments, mostInFlight: () => mostInFlight };
}

let report: ReturnType<typeof vi.fn<BatchOptions["report"]>>;
const batcher = (o: Partial<BatchOptions> = {}) => new AuditBatcher({ report, ...o });
const rowsOf = (shipments: AuditRow[][]) => shipments.flat().map((r) => r.detail.n);

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-12-07T12:00:00Z") });
  report = vi.fn<BatchOptions["report"]>();
});
afterEach(() => vi.useRealTimers());

describe("the audit batcher: rows of an isolate shipped per tenant in batches", () => {
  it("ships many rows from two writers as one call, in the order they were written", async () => {
    const log = fakeLog();
    const b = batcher({ delayMs: 200 });
    // Two writers of the isolate (a hub and the edge), each with its own shipment (its own stub).
    const written = Array.from({ length: 40 }, (_, n) =>
      b.write("tn1", log.ship, n % 2 ? "api_write" : "consent_asked", { n }),
    );
    await vi.advanceTimersByTimeAsync(199);
    expect(log.shipments).toHaveLength(0); // still inside the batch's delay
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(written);
    expect(log.shipments).toHaveLength(1);
    expect(rowsOf(log.shipments)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(report).not.toHaveBeenCalled();
  });

  it("control: without batching (a batch of one row), N rows are N calls", async () => {
    const log = fakeLog();
    const b = batcher({ maxRows: 1 });
    const written = Array.from({ length: 40 }, (_, n) => b.write("tn1", log.ship, "api_write", { n }));
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(written);
    expect(log.shipments).toHaveLength(40);
    expect(rowsOf(log.shipments)).toEqual(Array.from({ length: 40 }, (_, n) => n));
  });

  it("stamps each row when it is written, not when its batch ships", async () => {
    const log = fakeLog();
    const b = batcher({ delayMs: 200 });
    const first = b.write("tn1", log.ship, "api_write", { n: 0 });
    await vi.advanceTimersByTimeAsync(150);
    const second = b.write("tn1", log.ship, "api_write", { n: 1 });
    await vi.advanceTimersByTimeAsync(400);
    await Promise.all([first, second]);
    expect(log.shipments.flat().map((r) => r.at)).toEqual([
      "2026-12-07T12:00:00.000Z",
      "2026-12-07T12:00:00.150Z",
    ]);
  });

  it("keeps tenants apart: one batch each", async () => {
    const a = fakeLog();
    const z = fakeLog();
    const b = batcher();
    const written = [
      b.write("tnA", a.ship, "api_write", { n: 1 }),
      b.write("tnZ", z.ship, "api_write", { n: 2 }),
    ];
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(written);
    expect([rowsOf(a.shipments), rowsOf(z.shipments)]).toEqual([[1], [2]]);
  });

  it("ships a batch at once when it reaches its row bound", async () => {
    const log = fakeLog();
    const b = batcher({ delayMs: 10_000, maxRows: 3 });
    void b.write("tn1", log.ship, "api_write", { n: 0 });
    void b.write("tn1", log.ship, "api_write", { n: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(log.shipments).toHaveLength(0); // control: under the bound, it waits for the delay
    await b.write("tn1", log.ship, "api_write", { n: 2 }); // the third row fills it: no timer needed
    expect(rowsOf(log.shipments)).toEqual([0, 1, 2]);
  });

  it("ships a batch at once when its details reach the size bound", async () => {
    const log = fakeLog();
    const b = batcher({ delayMs: 10_000, maxChars: 1_000 });
    void b.write("tn1", log.ship, "api_write", { n: 0, text: "x".repeat(500) });
    await vi.advanceTimersByTimeAsync(0);
    expect(log.shipments).toHaveLength(0); // control: half the bound waits
    await b.write("tn1", log.ship, "api_write", { n: 1, text: "x".repeat(500) });
    expect(rowsOf(log.shipments)).toEqual([0, 1]);
  });

  it("keeps order across batches: one shipment per tenant in flight at a time", async () => {
    const log = fakeLog({ slowMs: 50 });
    const b = batcher({ maxRows: 10 });
    const written = Array.from({ length: 35 }, (_, n) => b.write("tn1", log.ship, "api_write", { n }));
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(written);
    expect(rowsOf(log.shipments)).toEqual(Array.from({ length: 35 }, (_, n) => n));
    expect(log.mostInFlight()).toBe(1);
  });

  it("control: not waiting for the earlier shipment, two are in flight at once", async () => {
    const log = fakeLog({ slowMs: 50 });
    const b = batcher({ maxRows: 10, maxWaitMs: 0 });
    const written = Array.from({ length: 35 }, (_, n) => b.write("tn1", log.ship, "api_write", { n }));
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(written);
    expect(log.mostInFlight()).toBeGreaterThan(1);
  });

  it("retries a failed shipment once, and then the rows are written", async () => {
    const log = fakeLog({ failures: 1 });
    const b = batcher();
    const written = b.write("tn1", log.ship, "consent_expired", { n: 0 });
    await vi.advanceTimersByTimeAsync(1000);
    await written;
    expect(rowsOf(log.shipments)).toEqual([0]);
    expect(report).not.toHaveBeenCalled();
  });

  it("never throws to a writer when the log is down: tried twice, then reported, never dropped in silence", async () => {
    const log = fakeLog({ failures: 2 });
    const b = batcher();
    const written = [
      b.write("tn1", log.ship, "consent_expired", { n: 0 }),
      b.write("tn1", log.ship, "api_write", { n: 1 }),
    ];
    await vi.advanceTimersByTimeAsync(1000);
    await expect(Promise.all(written)).resolves.toEqual([undefined, undefined]);
    expect(log.shipments).toHaveLength(0);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0]?.[0]).toBe("audit: 2 event(s) were not written (consent_expired, api_write)");
    expect(report.mock.calls[0]?.[1]).toBeInstanceOf(Error);
  });

  it("a shipment that throws before it is sent is handled like a failed one", async () => {
    const b = batcher();
    const ship = () => {
      throw new Error("no stub");
    };
    const written = b.write("tn1", ship, "api_write", {});
    await vi.advanceTimersByTimeAsync(1000);
    await expect(written).resolves.toBeUndefined();
    expect(report).toHaveBeenCalledTimes(1);
  });

  it("writeNow ships at once, after the rows buffered before it, and says whether it was written", async () => {
    const log = fakeLog();
    const b = batcher({ delayMs: 10_000 });
    void b.write("tn1", log.ship, "api_write", { n: 0 });
    expect(await b.writeNow("tn1", log.ship, "operator_key_issued", { n: 1 })).toBe(true);
    expect(log.shipments).toHaveLength(1);
    expect(rowsOf(log.shipments)).toEqual([0, 1]);

    const down = fakeLog({ failures: 2 });
    expect(await b.writeNow("tn1", down.ship, "operator_key_issued", { n: 2 })).toBe(false);
  });

  it("writeNow says false when its row's shipment failed, whichever flush carried it", async () => {
    let calls = 0;
    let open: () => void = () => {};
    const ship = async (_rows: AuditRow[]) => {
      calls++;
      if (calls === 1) return new Promise<void>((resolve) => (open = resolve)); // slow, then written
      throw new Error("tenant unreachable");
    };
    const b = batcher({ delayMs: 0, pollMs: 1, maxWaitMs: 10_000 });
    const first = b.write("tn1", ship, "api_write", { n: 0 });
    await vi.advanceTimersByTimeAsync(1); // the first row's shipment is in flight
    const now = b.writeNow("tn1", ship, "operator_key_issued", { n: 1 });
    await vi.advanceTimersByTimeAsync(1);
    open(); // the first flush goes on, takes the writeNow row into a batch of its own, which fails
    await vi.advanceTimersByTimeAsync(50);
    // Before: writeNow's own flush found nothing left to ship and said true (a second reader's find).
    expect(await now).toBe(false);
    await first;
    expect(calls).toBe(3); // the row's batch was tried twice
  });

  it("flush ships what is buffered and waits for a shipment already in flight", async () => {
    const log = fakeLog({ slowMs: 100 });
    const b = batcher({ delayMs: 10_000, maxRows: 2 });
    void b.write("tn1", log.ship, "api_write", { n: 0 });
    void b.write("tn1", log.ship, "api_write", { n: 1 }); // full: in flight for 100 ms
    void b.write("tn1", log.ship, "api_write", { n: 2 }); // buffered behind it
    let flushed = false;
    const flush = b.flush().then(() => {
      flushed = true;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(flushed).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await flush;
    expect(rowsOf(log.shipments)).toEqual([0, 1, 2]);
    expect(b.pending()).toEqual({});
  });
});
