/**
 * The audit log written where the event happens and shipped in batches (objects/audit-batch.ts,
 * #31): rows from the edge and from a hub reach the admin's one log in the order they were written,
 * each at its own event time, and many rows cost one TenantDO call, not one each.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AUDIT_BATCH_DEFAULTS } from "../../src/objects/audit-batch.ts";
import { flushAudit } from "../../src/objects/audit-sink.ts";
import { callCounts } from "../../src/objects/call-counts.ts";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { api, createTenant, readAudit } from "./helpers.ts";
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
    await flushAudit(); // no earlier test's rows ship inside the count
    let elapsed = 0;
    const made = await counting(async () => {
      const started = Date.now();
      await Promise.all(users.map((userId) => openSession(w, { userId })));
      elapsed = Date.now() - started;
      await flushAudit(w.tenant.tenantId); // what is still buffered ships now, inside the count
    });
    const events = await audit(w.tenant.adminKey, last!.seq);
    expect(events.filter((e) => e.type === "api_write")).toHaveLength(users.length);
    // One shipment per batch delay (1 s) the writes spanned, and the flush's: before batching,
    // 12 calls of TenantDO.audit. On an idle machine the writes take well under 1 s: 1 or 2 calls.
    expect(made("TenantDO.audit")).toBe(0);
    expect(made("TenantDO.appendAudit")).toBeGreaterThanOrEqual(1);
    expect(made("TenantDO.appendAudit")).toBeLessThanOrEqual(
      Math.floor(elapsed / AUDIT_BATCH_DEFAULTS.delayMs) + 2,
    );
    expect(made("TenantDO.appendAudit")).toBeLessThan(users.length);
  });

  it("appendAudit writes a batch in its order, each row at its own time", async () => {
    const tenant = await createTenant();
    const stub = rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenant.tenantId)));
    // The tenant's creation is audited too (batched): in the log first, so only the batch follows.
    const last = (await readAudit(tenant.tenantId)).at(-1)?.seq ?? 0;
    const arrived = Date.now();
    // Written out of time order, as two places' rows may arrive: the log keeps the arrival order.
    const later = new Date(arrived - 100).toISOString();
    const earlier = new Date(arrived - 500).toISOString();
    await stub.appendAudit([
      { at: later, type: "api_write", detail: { n: 1 } },
      { at: earlier, type: "consent_asked", detail: { n: 2 } },
      // A time that is not one (a writer's bug): kept as the arrival time, not a row out of reach.
      { at: "yesterday", type: "api_write", detail: { n: 3 } },
    ]);
    const rows = await stub.readAudit({ seq: last });
    expect(rows.map((e) => [e.type, e.detail.n])).toEqual([
      ["api_write", 1],
      ["consent_asked", 2],
      ["api_write", 3],
    ]);
    expect(rows.slice(0, 2).map((e) => e.at)).toEqual([later, earlier]);
    expect(Date.parse(rows[2]!.at)).toBeGreaterThanOrEqual(arrived - 1000);
  });
});
