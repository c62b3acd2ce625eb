/**
 * The tenant's state as hubs and spokes hold it (src/objects/tenant-replica/, tenant/serving-state.ts):
 * sent once per stamp, anew after each change; held by the isolate, frozen; within STATE_BOUND_MS of
 * a change everywhere (a replica that no write reaches, under a clock of its own); and a query's
 * steps ask the tenant's object nothing once the state is held.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoCatalog } from "../../examples/tenant/catalog.ts";
import { callCounts } from "../../src/objects/call-counts.ts";
import { JOIN_MS } from "../../src/objects/join.ts";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import type { ServingState } from "../../src/objects/tenant/serving-state.ts";
import { Bounded } from "../../src/objects/tenant-replica/bounded.ts";
import { flushUsage, STATE_BOUND_MS, servingState } from "../../src/objects/tenant-replica/index.ts";
import { APPS_BASE, registerDemoApp, uniqueWorld } from "./demo.ts";
import { api, createTenant, issueKey } from "./helpers.ts";
import { ask, display, hubWorld, lit, openSession, ref, script, settle, tool } from "./hub-kit.ts";

async function tenantWithApp() {
  const tenant = await createTenant();
  const dev = (await issueKey(tenant, "developer")).secret;
  const contacts = await registerDemoApp(tenant, dev, "contacts", uniqueWorld("views"));
  const stub = rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenant.tenantId)));
  return { tenant, contacts, stub };
}

const names = (state: ServingState | null | undefined) => state?.view.apps.map((a) => a.name);

describe("the serving state", () => {
  it("is sent once per stamp, and anew after each change to what it is made from", async () => {
    const { tenant, contacts, stub } = await tenantWithApp();
    const first = await stub.servingState(null);
    expect(names(first.value)).toEqual(["contacts"]);
    expect(first.value?.models.planner).toBeDefined();
    expect(await stub.servingState(first.stamp)).toEqual({ stamp: first.stamp, value: null });

    const changes = [
      () => api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey }),
      () => api("POST", `/v1/admin/apps/${contacts.id}/enable`, { key: tenant.adminKey }),
      () => api("PUT", "/v1/admin/policy", { key: tenant.adminKey, body: { onViolation: "ask" } }),
      () =>
        api("PUT", "/v1/admin/catalog", {
          key: tenant.adminKey,
          body: { entries: demoCatalog(demoManifests(APPS_BASE, "clean")) },
        }),
    ];
    const served: Array<string[] | undefined> = [];
    let stamp = first.stamp;
    for (const change of changes) {
      expect((await change()).status).toBe(200);
      const next = await stub.servingState(stamp);
      expect(next.stamp).not.toBe(stamp);
      served.push(names(next.value));
      stamp = next.stamp;
    }
    expect(served).toEqual([[], ["contacts"], ["contacts"], ["contacts"]]);
    expect((await stub.servingState(null)).value?.view.policy.onViolation).toBe("ask");
  });

  it("is held by the isolate, frozen, and forgotten here by a write through this isolate", async () => {
    const { tenant, contacts } = await tenantWithApp();
    const held = await servingState(env, tenant.tenantId);
    expect(names(held)).toEqual(["contacts"]);
    expect(Object.isFrozen(held.view.policy.quotas)).toBe(true);
    expect(await servingState(env, tenant.tenantId)).toBe(held); // not asked again
    await api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey });
    expect(names(await servingState(env, tenant.tenantId))).toEqual([]);
  });
});

describe("the staleness bound, for an isolate no write reaches", () => {
  /** A replica of its own (as in another isolate) over the real TenantDO, with a clock the test moves. */
  function remoteReplica(stub: ReturnType<typeof rpc<TenantDO>>, boundMs: number) {
    let now = 1_000_000;
    const replica = new Bounded<ServingState>(boundMs, 8, () => now);
    return {
      read: (id: string) => replica.get(id, (stamp) => stub.servingState(stamp)),
      wait: (ms: number) => {
        now += ms;
      },
    };
  }

  it("serves a disabled app, a new policy or a live revoked key no longer than STATE_BOUND_MS", async () => {
    const { tenant, contacts, stub } = await tenantWithApp();
    const remote = remoteReplica(stub, STATE_BOUND_MS);
    const before = await remote.read(tenant.tenantId);
    const secret = before.apps[0]?.secrets.secret;
    const frontend = await issueKey(tenant, "frontend");
    await api("DELETE", `/v1/admin/keys/${frontend.id}`, { key: tenant.adminKey });
    await api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey });
    await api("PUT", "/v1/admin/policy", { key: tenant.adminKey, body: { onViolation: "ask" } });
    remote.wait(STATE_BOUND_MS - 1);
    // Within the bound the old state may still be served: the price of asking no one.
    expect(names(await remote.read(tenant.tenantId))).toEqual(["contacts"]);
    remote.wait(1);
    const after = await remote.read(tenant.tenantId);
    expect(names(after)).toEqual([]);
    expect(after.view.policy.onViolation).toBe("ask");
    expect(after.apps).toEqual([]);
    expect(after.revokedKeys).toContain(frontend.id); // its user tokens end everywhere within the bound
    expect(before.revokedKeys).not.toContain(frontend.id);
    expect(secret).toBeDefined();
  });

  it("control: without the bound the disabled app would be served on and on", async () => {
    const { tenant, contacts, stub } = await tenantWithApp();
    const unbounded = remoteReplica(stub, Number.POSITIVE_INFINITY);
    await unbounded.read(tenant.tenantId);
    await api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey });
    unbounded.wait(10 * STATE_BOUND_MS);
    expect(names(await unbounded.read(tenant.tenantId))).toEqual(["contacts"]);
  });
});

describe("a fetch another request started", () => {
  it("is joined for JOIN_MS at most: a fetch that never settles does not hang the next reader", async () => {
    const replica = new Bounded<string>(STATE_BOUND_MS, 8);
    let fetches = 0;
    const fetch = (): Promise<{ stamp: string; value: string }> => {
      fetches++;
      // The first request's call never settles (its request was cancelled); the next one answers.
      return fetches === 1 ? new Promise(() => {}) : Promise.resolve({ stamp: "s", value: "state" });
    };
    void replica.get("t", fetch);
    const started = Date.now();
    expect(await replica.get("t", fetch)).toBe("state");
    expect(fetches).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(JOIN_MS - 50);
    // Control: a fetch that settles is joined, not repeated.
    const fresh = new Bounded<string>(STATE_BOUND_MS, 8);
    let calls = 0;
    const once = () => {
      calls++;
      return Promise.resolve({ stamp: "s", value: "v" });
    };
    await Promise.all([fresh.get("t", once), fresh.get("t", once)]);
    expect(calls).toBe(1);
  });
});

describe("a query's steps", () => {
  it("ask the tenant's object nothing once its state is held", async () => {
    const w = await hubWorld(["contacts"]);
    const sid = await openSession(w);
    const plan = {
      steps: [tool("landlord", "contacts.lookup", { name: lit("landlord") }), display(ref("landlord"))],
    };
    await script(w.models.planner, [{ respond: plan }, { respond: plan }]);
    const warm = await settle(w, sid, await ask(w, sid, "landlord?"));
    expect(warm.status, JSON.stringify(warm.error)).toBe("completed");
    await flushUsage();
    const switches = env as unknown as { LATTICE_COUNT_CALLS?: string };
    const before = callCounts();
    switches.LATTICE_COUNT_CALLS = "on"; // the bench's call counter, for this query only
    try {
      const done = await settle(w, sid, await ask(w, sid, "landlord again?"));
      expect(done.status).toBe("completed");
    } finally {
      delete switches.LATTICE_COUNT_CALLS;
    }
    const after = callCounts();
    const made = Object.fromEntries(
      Object.keys(after)
        .filter((k) => k.startsWith("TenantDO.") && k !== "TenantDO.audit")
        .map((k) => [k, after[k]! - (before[k] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
    expect(made).toEqual({});
    expect((after["SpokeDO.call"] ?? 0) - (before["SpokeDO.call"] ?? 0)).toBe(1);
  });
});
