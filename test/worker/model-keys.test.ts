/**
 * Model settings: keys are write-only, sealed apart from the policy, and only ever sent where the
 * admin sent them; base URLs and MCP URLs pass the egress guard; a provider's error body never
 * reaches the user.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { endpointProblem } from "../../src/apps/egress.ts";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { type SettingsContext, sealLegacyKeys } from "../../src/objects/tenant/model-settings.ts";
import { MASKED_KEY, preparePolicy } from "../../src/objects/tenant/policy-store.ts";
import { api, createTenant, expectError, type TestTenant } from "./helpers.ts";

const KEY = "sk-live-7f3a9c0d1e2b";
const planner = (baseURL: string, apiKey?: string) => ({
  models: { planner: { provider: "openai", model: "gpt-x", baseURL, ...(apiKey && { apiKey }) } },
});
const put = (t: TestTenant, body: unknown) => api("PUT", "/v1/admin/policy", { key: t.adminKey, body });
const tenantDO = (t: TestTenant) => env.TENANT.getByName(tenantObjectName(t.tenantId));

/** Every row of the tenant's policy versions and sealed keys, as stored. */
async function storage(t: TestTenant): Promise<string> {
  return runInDurableObject(tenantDO(t), async (_instance, state) =>
    JSON.stringify([
      state.storage.sql.exec("SELECT * FROM policies").toArray(),
      state.storage.sql.exec("SELECT * FROM model_keys").toArray(),
    ]),
  );
}

describe("model API keys", () => {
  it("are sealed apart from the policy: no version, answer or stored row holds the key in clear", async () => {
    const t = await createTenant();
    expect((await put(t, planner("https://llm.acme.test/v1", KEY))).status).toBe(200);
    const read = await api("GET", "/v1/admin/policy", { key: t.adminKey });
    expect(JSON.stringify(read.body)).not.toContain(KEY);
    expect(read.body).toMatchObject({ policy: { models: { planner: { apiKey: MASKED_KEY } } } });
    const stored = await storage(t);
    expect(stored).toContain("llm.acme.test");
    expect(stored).not.toContain(KEY);
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({ apiKey: KEY });
  });

  it("refuses the masked key with a new baseURL: the stored key never goes to another host", async () => {
    const t = await createTenant();
    await put(t, planner("https://llm.acme.test/v1", KEY));
    const swapped = await put(t, planner("https://collect.evil.test/v1", MASKED_KEY));
    expectError(swapped, 400, "invalid_request");
    expect(JSON.stringify(swapped.body)).toContain("body.models.planner.apiKey");
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({
      baseURL: "https://llm.acme.test/v1",
      apiKey: KEY,
    });
    // Control: the masked key with the same baseURL keeps the key, as a read-modify-write should.
    expect((await put(t, planner("https://llm.acme.test/v1", MASKED_KEY))).status).toBe(200);
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({ apiKey: KEY });
  });

  it("serves a rotated or removed key from the next call on, though the old one was resolved", async () => {
    const t = await createTenant();
    await put(t, planner("https://llm.acme.test/v1", KEY));
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({ apiKey: KEY });
    await put(t, planner("https://llm.acme.test/v1", "sk-live-rotated-0001"));
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({
      apiKey: "sk-live-rotated-0001",
    });
    await put(t, planner("https://other.acme.test/v1"));
    const after = await rpc<TenantDO>(tenantDO(t)).modelConfig("planner");
    expect(after.baseURL).toBe("https://other.acme.test/v1");
    expect(after.apiKey ?? "").toBe("");
  });

  it("does not open a sealed key for another host even if the stored binding is rewritten", async () => {
    const t = await createTenant();
    await put(t, planner("https://llm.acme.test/v1", KEY));
    // Tampering with the row's host: the sealed key's additional data names the old one.
    await runInDurableObject(tenantDO(t), async (_i, state) => {
      state.storage.sql.exec("UPDATE model_keys SET base_url = 'https://collect.evil.test/v1'");
      // A policy version pointing at the attacker's host, written behind the API's back.
      state.storage.sql.exec(
        `INSERT INTO policies (version, document, created_at)
         SELECT version + 1, replace(document, 'llm.acme.test', 'collect.evil.test'), created_at
         FROM policies ORDER BY version DESC LIMIT 1`,
      );
    });
    const config = await rpc<TenantDO>(tenantDO(t)).modelConfig("planner");
    expect(config.baseURL).toBe("https://collect.evil.test/v1");
    // No key at all: neither the tenant's (it does not open) nor the deployment's in its place.
    expect(config.apiKey ?? "").toBe("");
  });

  it("moves a key stored in an old policy document into a sealed row, and scrubs every version", async () => {
    const t = await createTenant();
    await put(t, planner("https://llm.acme.test/v1"));
    await runInDurableObject(tenantDO(t), async (instance, state) => {
      const doc = JSON.stringify(planner("https://llm.acme.test/v1", KEY));
      state.storage.sql.exec(
        "INSERT INTO policies (version, document, created_at) VALUES (9, ?, '2026-01-01T00:00:00Z')",
        doc,
      );
      await sealLegacyKeys((instance as unknown as { settings(): SettingsContext }).settings());
    });
    expect(await storage(t)).not.toContain(KEY);
    expect(await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).toMatchObject({ apiKey: KEY });
  });
});

describe("a key in an old policy version", () => {
  it("is not brought back when the version in force has none", async () => {
    const t = await createTenant();
    await runInDurableObject(tenantDO(t), async (instance, state) => {
      const withKey = JSON.stringify(planner("https://llm.acme.test/v1", KEY));
      const without = JSON.stringify(planner("https://llm.acme.test/v1"));
      const insert =
        "INSERT INTO policies (version, document, created_at) VALUES (?, ?, '2026-01-01T00:00:00Z')";
      state.storage.sql.exec(insert, 3, withKey);
      state.storage.sql.exec(insert, 4, without); // the admin removed the key in v4
      await sealLegacyKeys((instance as unknown as { settings(): SettingsContext }).settings());
    });
    expect(await storage(t)).not.toContain(KEY);
    expect((await rpc<TenantDO>(tenantDO(t)).modelConfig("planner")).apiKey).toBeUndefined();
  });
});

describe("base URLs in production", () => {
  const prepare = (baseURL: string, mode: "dev" | "production") =>
    preparePolicy(planner(baseURL, KEY), { mode, stored: [], canSeal: true, requestSchemas: new Map() });

  it.each([
    "http://llm.acme.test/v1",
    "https://10.0.0.8/v1",
    "https://169.254.169.254/latest",
    "https://[::7f00:1]/v1",
    "https://[fd00::1]/v1",
  ])("refuses %s, naming the field", (baseURL) => {
    const refused = prepare(baseURL, "production");
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toContain("models.planner.baseURL");
  });

  it("control: a public https host passes in production, and dev mode lets a local fake through", () => {
    expect(prepare("https://api.openai.com/v1", "production").ok).toBe(true);
    expect(prepare("http://10.0.0.8/v1", "dev").ok).toBe(true);
  });

  it("refuses to store a key when the deployment has no sealing secret", () => {
    const refused = preparePolicy(planner("https://api.openai.com/v1", KEY), {
      mode: "production",
      stored: [],
      canSeal: false,
      requestSchemas: new Map(),
    });
    expect(JSON.stringify(refused)).toContain("LATTICE_KEY_SECRET");
  });
});

describe("the egress guard", () => {
  it.each([
    ["::7f00:1", "IPv4-compatible loopback"],
    ["64:ff9b::a9fe:a9fe", "NAT64 of the metadata address"],
    ["2002:a9fe:a9fe::", "6to4 of the metadata address"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["fe80::1", "link-local"],
    ["100::1", "discard"],
  ])("refuses [%s] (%s)", (host) => {
    expect(endpointProblem(`https://[${host}]/x`, "production")).toMatch(/private|loopback|link-local/);
  });

  it.each(["192.0.2.1", "198.18.0.1", "203.0.113.9", "0x7f.1", "2130706433", "100.64.0.1"])(
    "refuses IPv4 %s",
    (host) => {
      expect(endpointProblem(`https://${host}/x`, "production")).not.toBeNull();
    },
  );

  it("control: global addresses and names pass", () => {
    expect(endpointProblem("https://[2606:4700:4700::1111]/x", "production")).toBeNull();
    expect(endpointProblem("https://1.1.1.1/x", "production")).toBeNull();
    expect(endpointProblem("https://apps.acme.test/x", "production")).toBeNull();
  });
});
