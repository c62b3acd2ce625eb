import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { endpointProblem } from "../../src/apps/egress.ts";
import type { SpokeCall } from "../../src/contracts.ts";
import { ephemeralId, resolveEphemeral } from "../../src/objects/hub/ephemeral.ts";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName, spokeObjectName, tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { SpokeDO } from "../../src/objects/spoke/index.ts";
import { type Sql, sqlTag } from "../../src/objects/sql.ts";
import { registryChanged } from "../../src/objects/tenant/registry.ts";
import { forgetTenant } from "../../src/objects/tenant-replica/index.ts";
import { demoApps, registerDemoApp, uniqueWorld, worldState } from "./demo.ts";
import { api, createTenant, issueKey, readAudit, type TestTenant } from "./helpers.ts";

async function setup(): Promise<{ tenant: TestTenant; dev: string; world: string }> {
  const tenant = await createTenant();
  return { tenant, dev: (await issueKey(tenant, "developer")).secret, world: uniqueWorld("spoke") };
}

function spokeCall(
  tenant: TestTenant,
  appId: string,
  functionality: string,
  request: unknown,
  extra: Partial<SpokeCall> = {},
) {
  const spoke = rpc<SpokeDO>(env.SPOKE.getByName(spokeObjectName(tenant.tenantId, "u1", appId)));
  return spoke.call({
    tenantId: tenant.tenantId,
    userId: "u1",
    appId,
    functionality,
    request,
    callId: "call_test",
    idempotencyKey: crypto.randomUUID(),
    ...extra,
  });
}

async function auditTypes(tenant: TestTenant): Promise<string[]> {
  const events = await readAudit(tenant.tenantId);
  return events.map((e) => e.type);
}

describe("spoke calls to an app endpoint", () => {
  it("calls an approved app with a verified signature, and the app's state changes", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev, "bank", world);
    const result = await spokeCall(tenant, bank.id, "send_money", {
      recipient: "DE89370400440532013000",
      amount: 12.5,
      subject: "test",
    });
    expect(result).toMatchObject({ ok: true, appVersion: 1 });
    const state = await worldState(world);
    expect(state.calls).toHaveLength(1);
    expect(state.calls[0]).toMatchObject({
      app: "bank",
      functionality: "send_money",
      verified: true,
      repeat: false,
    });
    expect(JSON.stringify(state.apps.bank)).toContain("DE89370400440532013000");
  });

  it("never calls a pending, rejected or disabled app", async () => {
    const { tenant, dev, world } = await setup();
    const pending = await registerDemoApp(tenant, dev, "contacts", world, { approve: false });
    const rejected = await registerDemoApp(tenant, dev, "calendar", world, { approve: false });
    await api("POST", `/v1/admin/apps/${rejected.id}/versions/1/reject`, {
      key: tenant.adminKey,
      body: { reason: "no" },
    });
    const disabled = await registerDemoApp(tenant, dev, "drive", world);
    await api("POST", `/v1/admin/apps/${disabled.id}/disable`, { key: tenant.adminKey });
    for (const [app, fn] of [
      [pending.id, "list"],
      [rejected.id, "list_events"],
      [disabled.id, "list"],
    ] as const) {
      expect(await spokeCall(tenant, app, fn, {})).toMatchObject({ ok: false, code: "app_unavailable" });
    }
    expect((await worldState(world)).calls).toEqual([]);
  });

  it("stops calling an app from the call after it is disabled, and resumes once it is enabled", async () => {
    const { tenant, dev, world } = await setup();
    const contacts = await registerDemoApp(tenant, dev, "contacts", world);
    const lookup = () => spokeCall(tenant, contacts.id, "lookup", { name: "landlord" });
    expect(await lookup()).toMatchObject({ ok: true }); // the TenantDO now holds the serving apps
    await api("POST", `/v1/admin/apps/${contacts.id}/disable`, { key: tenant.adminKey });
    expect(await lookup()).toMatchObject({ ok: false, code: "app_unavailable" });
    await api("POST", `/v1/admin/apps/${contacts.id}/enable`, { key: tenant.adminKey });
    expect(await lookup()).toMatchObject({ ok: true });
    expect((await worldState(world)).calls).toHaveLength(2);
  });

  it("drops a request that breaks its schema, audits it, and never calls the app", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev, "bank", world);
    const result = await spokeCall(tenant, bank.id, "send_money", { recipient: "X", amount: "all of it" });
    expect(result).toMatchObject({ ok: false, code: "invalid_request" });
    expect((result as { problems: string[] }).problems.length).toBeGreaterThan(0);
    expect(await auditTypes(tenant)).toContain("malformed_app_request");
    expect((await worldState(world)).calls).toEqual([]);
  });

  it("ends timeout, 5xx, oversize, non-JSON and badly shaped answers cleanly", async () => {
    const { tenant, dev, world } = await setup();
    const app = await registerDemoApp(tenant, dev, "misbehave", world);
    const call = (fn: string, request: unknown = {}) =>
      spokeCall(tenant, app.id, fn, request, { limits: { timeoutMs: 500 } });
    expect(await call("slow")).toMatchObject({ ok: false, code: "app_timeout" });
    expect(await call("error")).toMatchObject({ ok: false, code: "app_error" });
    expect(await call("oversize")).toMatchObject({ ok: false, code: "app_response_too_large" });
    expect(await call("notjson")).toMatchObject({ ok: false, code: "app_response_not_json" });
    expect(await call("badshape")).toMatchObject({ ok: false, code: "invalid_response" });
    expect(await call("ok", { message: "hi" })).toMatchObject({ ok: true });
    const types = await auditTypes(tenant);
    expect(types).toContain("malformed_app_response");
    expect(types.filter((t) => t === "app_call_failed")).toHaveLength(4);
  });

  it("remembers interactions per user and app, and nothing in a private call", async () => {
    const { tenant, dev, world } = await setup();
    const contacts = await registerDemoApp(tenant, dev, "contacts", world);
    await spokeCall(tenant, contacts.id, "lookup", { name: "landlord" });
    await spokeCall(tenant, contacts.id, "lookup", { name: "mom" }, { remember: false });
    const memory = await rpc<SpokeDO>(
      env.SPOKE.getByName(spokeObjectName(tenant.tenantId, "u1", contacts.id)),
    ).memory();
    expect(memory.map((m) => m.request)).toEqual([{ name: "landlord" }]);
  });
});

describe("egress guard", () => {
  it("refuses private, loopback and link-local endpoints in production, allows loopback in dev", () => {
    expect(endpointProblem("https://apps.example.com/x", "production")).toBeNull();
    for (const bad of [
      "http://apps.example.com/x",
      "https://127.0.0.1/x",
      "https://localhost:8788/x",
      "https://10.1.2.3/x",
      "https://192.168.0.10/x",
      "https://172.20.0.1/x",
      "https://169.254.169.254/latest",
      "https://[::1]/x",
      "https://[fe80::1]/x",
      "https://printer.local/x",
      "https://user:pw@apps.example.com/x",
    ]) {
      expect(endpointProblem(bad, "production"), bad).not.toBeNull();
    }
    expect(endpointProblem("http://127.0.0.1:8788/w/demo/mail", "dev")).toBeNull();
    expect(endpointProblem("http://10.0.0.1/x", "dev")).not.toBeNull();
  });
});

describe("ephemeral functionality ids", () => {
  it("are stable within a session, differ across sessions, and a forged id resolves to nothing", async () => {
    const tenant = await createTenant();
    const stub = (sid: string) => env.HUB.getByName(hubObjectName(tenant.tenantId, sid));
    for (const sid of ["ses_a", "ses_b"])
      await rpc<HubDO>(stub(sid)).open({
        id: sid,
        tenantId: tenant.tenantId,
        userId: "alice",
        private: false,
      });
    const inHub = <T>(sid: string, work: (sql: Sql) => T) =>
      runInDurableObject(stub(sid), (_, state) => work(sqlTag(state.storage)));
    const ref = { appId: "app_1", functionality: "quote" };
    const a1 = await inHub("ses_a", (sql) => ephemeralId(sql, ref));
    expect(a1).toMatch(/^fx_[0-9a-f]+$/);
    expect(await inHub("ses_a", (sql) => ephemeralId(sql, ref))).toBe(a1);
    expect(await inHub("ses_a", (sql) => resolveEphemeral(sql, a1))).toEqual(ref);
    const b1 = await inHub("ses_b", (sql) => ephemeralId(sql, ref));
    expect(b1).not.toBe(a1);
    expect(await inHub("ses_b", (sql) => resolveEphemeral(sql, a1))).toBeNull();
    expect(await inHub("ses_a", (sql) => resolveEphemeral(sql, "fx_forged"))).toBeNull();
  });
});

describe("signing secret rotation", () => {
  it("keeps calls working through the overlap, audited; the old secret stops after it", async () => {
    const { tenant, dev, world } = await setup();
    const contacts = await registerDemoApp(tenant, dev, "contacts", world);
    const rotated = await api("POST", `/v1/apps/${contacts.id}/secret`, { key: dev });
    expect(rotated.status).toBe(200);
    const { secret } = rotated.body as { secret: string; previousValidUntil: string };
    expect(secret).not.toBe(contacts.secret);
    // The app still holds the old secret: Lattice signs with both during the overlap.
    expect(await spokeCall(tenant, contacts.id, "lookup", { name: "landlord" })).toMatchObject({ ok: true });
    // The app moves to the new one at its own pace.
    const setSecret = (s: string) =>
      demoApps().fetch(`http://apps/w/${world}/_demo/secrets`, {
        method: "PUT",
        body: JSON.stringify({ contacts: s }),
      });
    await setSecret(secret);
    expect(await spokeCall(tenant, contacts.id, "lookup", { name: "landlord" })).toMatchObject({ ok: true });
    expect(await auditTypes(tenant)).toContain("app_secret_rotated");
    // Control: past the overlap, an app still on the old secret is refused (401 from its verifier).
    const { runInDurableObject } = await import("cloudflare:test");
    await runInDurableObject(
      env.TENANT.getByName(tenantObjectName(tenant.tenantId)),
      async (instance, state) => {
        state.storage.sql.exec("UPDATE apps SET previous_until = '2000-01-01T00:00:00.000Z'");
        // Written past the registry's own functions: the test says so, as each of them does.
        registryChanged((instance as unknown as { sql: Sql }).sql);
      },
    );
    forgetTenant(tenant.tenantId); // and past the TenantDO's methods, which tell this isolate's replica
    await setSecret(contacts.secret);
    expect(await spokeCall(tenant, contacts.id, "lookup", { name: "landlord" })).toMatchObject({
      ok: false,
      code: "app_error",
    });
  });

  it("is only for the app's own developer", async () => {
    const { tenant, dev, world } = await setup();
    const contacts = await registerDemoApp(tenant, dev, "contacts", world);
    const other = (await issueKey(tenant, "developer", "other")).secret;
    expect((await api("POST", `/v1/apps/${contacts.id}/secret`, { key: other })).status).toBe(404);
  });
});
