/**
 * Writes made just after the reply (src/objects/write-behind.ts) stay exact for the object's own
 * readers: each check below runs its steps in one synchronous turn of the object, before the
 * deferred task can run, so only what the reader adds (the pending count, a flush) makes it see them.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { spokeObjectName, tenantObjectName } from "../../src/objects/names.ts";
import type { Sql } from "../../src/objects/sql.ts";
import { Counters } from "../../src/objects/tenant/usage.ts";
import { WriteBehind } from "../../src/objects/write-behind.ts";
import { registerDemoApp, uniqueWorld } from "./demo.ts";
import { api, createTenant, issueKey } from "./helpers.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("writes behind the reply", () => {
  it("run after the current task, in order, and one that throws does not drop the rest", async () => {
    // The failed write is logged: here that log is the expected outcome, asserted, not printed.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const behind = new WriteBehind();
      const done: number[] = [];
      behind.defer(() => done.push(1));
      behind.defer(() => {
        throw new Error("storage full");
      });
      behind.defer(() => done.push(3));
      expect(done).toEqual([]);
      await tick();
      expect(done).toEqual([1, 3]);
      expect(logged).toHaveBeenCalledExactlyOnceWith(
        "a deferred write failed",
        expect.objectContaining({ message: "storage full" }),
      );
      behind.defer(() => done.push(4));
      behind.flush();
      expect(done).toEqual([1, 3, 4]);
    } finally {
      logged.mockRestore();
    }
  });

  it("keep a quota exact: a second use in the same turn sees the first, and both are stored", async () => {
    const tenant = await createTenant();
    const policy = await api("PUT", "/v1/admin/policy", {
      key: tenant.adminKey,
      body: { quotas: { appCallsPerDay: 2 } },
    });
    expect(policy.status).toBe(200);
    const stub = env.TENANT.getByName(tenantObjectName(tenant.tenantId));
    const checks = await runInDurableObject(stub, (instance) =>
      [1, 2, 3].map(() => instance.spend("app_calls").ok),
    );
    expect(checks).toEqual([true, true, false]);
    await tick();
    const stored = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT used FROM usage WHERE kind = 'app_calls'").toArray(),
    );
    expect(stored).toEqual([{ used: 2 }]);
  });

  it("keep a quota exact across writes while each check, after the day's first, runs no statement", async () => {
    const tenant = await createTenant();
    const stub = env.TENANT.getByName(tenantObjectName(tenant.tenantId));
    const seen = await runInDurableObject(stub, async (_instance, state) => {
      const statements: string[] = [];
      const sql: Sql = (strings, ...values) => {
        statements.push(strings.join("?").trim().split(/\s+/)[0]!);
        return state.storage.sql.exec(strings.join("?"), ...values).toArray() as never;
      };
      const counters = new Counters(sql);
      const checks = [counters.spend("app_calls", 1, 3).ok, counters.spend("app_calls", 1, 3).ok];
      await tick(); // both written
      checks.push(counters.spend("app_calls", 1, 3).ok, counters.spend("app_calls", 1, 3).ok);
      await tick();
      const stored = state.storage.sql.exec("SELECT used FROM usage WHERE kind = 'app_calls'").toArray();
      return { checks, selects: statements.filter((s) => s === "SELECT").length, stored };
    });
    // The fourth use is refused by the count the cache carried over the first two writes.
    expect(seen).toEqual({ checks: [true, true, true, false], selects: 1, stored: [{ used: 3 }] });
  });

  it("keep a use counted just before midnight that day's, though it is written after", async () => {
    const tenant = await createTenant();
    await api("PUT", "/v1/admin/policy", { key: tenant.adminKey, body: { quotas: { appCallsPerDay: 1 } } });
    const stub = env.TENANT.getByName(tenantObjectName(tenant.tenantId));
    const checks = await runInDurableObject(stub, (instance) => {
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(new Date("2031-03-01T23:59:59.999Z"));
        const before = instance.spend("app_calls").ok;
        vi.setSystemTime(new Date("2031-03-02T00:00:00.001Z")); // the first use is not written yet
        return [before, instance.spend("app_calls").ok];
      } finally {
        vi.useRealTimers();
      }
    });
    expect(checks).toEqual([true, true]);
    await tick();
    const stored = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT day, used FROM usage WHERE kind = 'app_calls' ORDER BY day").toArray(),
    );
    expect(stored).toEqual([
      { day: "2031-03-01", used: 1 },
      { day: "2031-03-02", used: 1 },
    ]);
  });

  it("keep a spoke's memory readable by the next read, and stored once the reply has left", async () => {
    const tenant = await createTenant();
    const dev = (await issueKey(tenant, "developer")).secret;
    const world = uniqueWorld("behind");
    const contacts = await registerDemoApp(tenant, dev, "contacts", world);
    const stub = env.SPOKE.getByName(spokeObjectName(tenant.tenantId, "u1", contacts.id));
    const read = await runInDurableObject(stub, async (instance) => {
      const result = await instance.call({
        tenantId: tenant.tenantId,
        userId: "u1",
        appId: contacts.id,
        functionality: "lookup",
        request: { name: "landlord" },
        callId: "call_behind",
        idempotencyKey: crypto.randomUUID(),
        memory: { carries: "public", mayRead: ["public"] },
      });
      // The same turn as the call's last line: the record is still queued, and the read flushes it.
      return { ok: result.ok, remembered: instance.memory().map((m) => m.functionality) };
    });
    expect(read).toEqual({ ok: true, remembered: ["lookup"] });
    await tick();
    const rows = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT call_id FROM interactions").toArray(),
    );
    expect(rows).toEqual([{ call_id: "call_behind" }]);
  });
});
