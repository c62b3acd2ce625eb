/**
 * The audit log written where the event happens and shipped in batches (objects/audit-batch.ts,
 * #31): rows from the edge and from a hub reach the admin's one log in the order they were written,
 * each at its own event time, and many rows cost one TenantDO call, not one each.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { flushAudit } from "../../src/objects/audit-sink.ts";
import { callCounts } from "../../src/objects/call-counts.ts";
import { api } from "./helpers.ts";
import { ask, hubWorld, openSession, script, settle, tool } from "./hub-kit.ts";

interface Event {
  seq: number;
  at: string;
  type: string;
  detail: Record<string, unknown>;
}

const audit = async (key: string, since: number): Promise<Event[]> =>
  ((await api("GET", `/v1/admin/audit?since=${since}&limit=1000`, { key })).body as { events: Event[] })
    .events;

/** Counts the TenantDO's calls (the bench's counter) while `work` runs; what each method cost. */
async function counting(work: () => Promise<void>): Promise<(method: string) => number> {
  const switches = env as unknown as { LATTICE_COUNT_CALLS?: string };
  const before = callCounts();
  switches.LATTICE_COUNT_CALLS = "on";
  try {
    await work();
  } finally {
    delete switches.LATTICE_COUNT_CALLS;
  }
  const after = callCounts();
  return (method) => (after[method] ?? 0) - (before[method] ?? 0);
}

describe("the audit log, batched where events happen", () => {
  it("keeps rows from the edge and a hub in one log, in the order they were written", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    const [last] = await audit(w.tenant.adminKey, 0).then((events) => events.slice(-1));
    // A plan naming no app: the hub audits plan_invalid while it plans, after the edge's api_write.
    await script(w.models.planner, [
      { when: "batched", respond: { steps: [tool("x", "nowhere.nothing", {})] } },
    ]);
    const qid = await ask(w, sid, "batched audit");
    expect((await settle(w, sid, qid)).status).toBe("failed");
    await openSession(w, { userId: "bob" }); // the edge again, after the hub
    const events = await audit(w.tenant.adminKey, last!.seq);
    expect(events.map((e) => [e.type, e.detail.path ?? e.detail.queryId])).toEqual([
      ["api_write", `/v1/sessions/${sid}/queries`],
      ["plan_invalid", qid],
      ["api_write", "/v1/sessions"],
    ]);
    // Each row keeps the time it happened: in the log's order, and never after it was read.
    const times = events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events[1]?.detail).toMatchObject({ sessionId: sid, userId: "alice" });
  });

  it("ships the rows of many writes as one call to the tenant, not one each", async () => {
    const w = await hubWorld([]);
    const [last] = await audit(w.tenant.adminKey, 0).then((events) => events.slice(-1));
    const users = Array.from({ length: 12 }, (_, i) => `user${i}`);
    const made = await counting(async () => {
      await Promise.all(users.map((userId) => openSession(w, { userId })));
      await flushAudit(w.tenant.tenantId); // what is still buffered ships now, inside the count
    });
    const events = await audit(w.tenant.adminKey, last!.seq);
    expect(events.filter((e) => e.type === "api_write")).toHaveLength(users.length);
    // 12 rows written inside one batch's delay: one shipment (two if the delay fell between them);
    // before batching this was 12 calls of TenantDO.audit.
    expect(made("TenantDO.audit")).toBe(0);
    expect(made("TenantDO.appendAudit")).toBeGreaterThanOrEqual(1);
    expect(made("TenantDO.appendAudit")).toBeLessThanOrEqual(2);
  });
});
