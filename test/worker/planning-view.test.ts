/**
 * The planning view a hub is sent (src/objects/tenant/planning-view.ts, hub/planning-views.ts): the
 * same view is not sent twice, and any change to what it is made from (an app disabled, a policy or
 * a catalog written) makes a new one at the next planning.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoCatalog } from "../../examples/tenant/catalog.ts";
import { callCounts } from "../../src/objects/call-counts.ts";
import { planningContextOf } from "../../src/objects/hub/planning-views.ts";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { APPS_BASE, registerDemoApp, uniqueWorld } from "./demo.ts";
import { api, createTenant, issueKey } from "./helpers.ts";
import { ask, display, hubWorld, lit, openSession, script, settle } from "./hub-kit.ts";

async function tenantWithApp() {
  const tenant = await createTenant();
  const dev = (await issueKey(tenant, "developer")).secret;
  const contacts = await registerDemoApp(tenant, dev, "contacts", uniqueWorld("views"));
  const stub = rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenant.tenantId)));
  return { tenant, contacts, stub };
}

describe("the planning view", () => {
  it("is sent once per stamp, and anew after each change to what it is made from", async () => {
    const { tenant, contacts, stub } = await tenantWithApp();
    const first = await stub.planningContext(null);
    expect(first.view?.apps.map((a) => a.name)).toEqual(["contacts"]);
    const again = await stub.planningContext(first.stamp);
    expect(again).toMatchObject({ stamp: first.stamp, view: null, planner: { ok: true } });

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
    const served: string[][] = [];
    let stamp = first.stamp;
    for (const change of changes) {
      expect((await change()).status).toBe(200);
      const next = await stub.planningContext(stamp);
      expect(next.stamp).not.toBe(stamp);
      expect(next.view).not.toBeNull();
      served.push(next.view!.apps.map((a) => a.name));
      stamp = next.stamp;
    }
    expect(served).toEqual([[], ["contacts"], ["contacts"], ["contacts"]]);
    const policy = (await stub.planningContext(null)).view!.policy;
    expect(policy.onViolation).toBe("ask");
  });

  it("is held by the hub's isolate, frozen, and replaced when the tenant's changes", async () => {
    const { tenant, contacts, stub } = await tenantWithApp();
    const held = await planningContextOf(stub, tenant.tenantId);
    expect(held.apps.map((a) => a.name)).toEqual(["contacts"]);
    expect(Object.isFrozen(held.policy.quotas)).toBe(true);
    const same = await planningContextOf(stub, tenant.tenantId);
    expect(same.apps).toBe(held.apps); // not sent again: the very view held
    await api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey });
    expect((await planningContextOf(stub, tenant.tenantId)).apps).toEqual([]);
  });
});

describe("a query's admission", () => {
  it("brings its planning context: the planner starts with no call to the tenant of its own", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    await script(w.models.planner, [{ when: "hello", respond: { steps: [display(lit("hi"))] } }]);
    const switches = env as unknown as { LATTICE_COUNT_CALLS?: string };
    const before = callCounts();
    switches.LATTICE_COUNT_CALLS = "on"; // the bench's call counter, for this query only
    try {
      const done = await settle(w, sid, await ask(w, sid, "hello"));
      expect(done.status).toBe("completed");
    } finally {
      delete switches.LATTICE_COUNT_CALLS;
    }
    const made = (method: string) => (callCounts()[method] ?? 0) - (before[method] ?? 0);
    expect(made("TenantDO.admitQuery")).toBe(1);
    expect(made("TenantDO.planningContext")).toBe(0);
    expect(made("ArtifactsDO.listMetadata")).toBe(1);
  });
});
