/**
 * Configuration as code (issue #34): a tenant exported, changed in the file, diffed and imported
 * back; a document with one bad field refused with that field named and nothing of it applied; a
 * stale If-Match refused with 412; the decisions an import applies audited as their routes audit them.
 */
import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import type { TenantConfig } from "../../src/objects/tenant/config-document.ts";
import { APPS_BASE, registerDemoApp } from "./demo.ts";
import { api, createTenant, expectError, issueKey, readAudit } from "./helpers.ts";
import { hubWorld } from "./hub-kit.ts";

const CLEAN = demoManifests(APPS_BASE, "clean");
const CATALOG = demoCatalog(CLEAN);
const BANK = demoBindings(CLEAN.find((m) => m.name === "bank")!, CATALOG);

async function world() {
  const w = await hubWorld(
    ["bank"],
    { planning: { mode: "catalog" } },
    {},
    { catalog: CATALOG, bindings: { bank: BANK } },
  );
  return { key: w.tenant.adminKey, tenantId: w.tenant.tenantId };
}

async function exported(key: string) {
  const res = await api("GET", "/v1/admin/config", { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { document: res.body as TenantConfig, etag: res.response.headers.get("ETag")! };
}

/** The file an admin edits: a reworded entry, a new role, the bank app disabled. */
function edited(document: TenantConfig): TenantConfig {
  const file = structuredClone(document);
  file.catalog.entries[0]!.description = "Reworded by the admin.";
  (file.policy.roles as Record<string, unknown>).clerk = { entries: [file.catalog.entries[0]!.name] };
  file.apps[0]!.enabled = false;
  return file;
}

describe("configuration as code", () => {
  it("round-trips: exported, changed in the file, diffed and imported back", async () => {
    const { key, tenantId } = await world();
    const { document, etag } = await exported(key);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(document).toMatchObject({ lattice: "tenant-config", version: 1 });
    // No secret in it: the model keys are masked, the apps' signing secrets absent.
    const text = JSON.stringify(document);
    expect(text).not.toContain("test-key");
    expect(text).not.toContain("whsec_");
    expect((document.policy.models as Record<string, { apiKey?: string }>).planner?.apiKey).toBe("********");
    // Unchanged, it is identical to the live tenant.
    const same = await api("POST", "/v1/admin/config/diff", { key, body: document });
    expect(same.body).toMatchObject({ etag, diff: { identical: true }, problems: [] });

    const file = edited(document);
    const entry = file.catalog.entries[0]!.name;
    const appId = file.apps[0]!.appId;
    const diff = await api("POST", "/v1/admin/config/diff", { key, body: file });
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    expect(diff.body).toEqual({
      etag,
      problems: [],
      diff: {
        identical: false,
        policy: [{ path: "policy.roles.clerk", change: "added", after: { entries: [entry] } }],
        catalog: [
          {
            path: `catalog.entries[${entry}].description`,
            change: "changed",
            before: document.catalog.entries[0]!.description,
            after: "Reworded by the admin.",
          },
        ],
        apps: [{ path: `apps[${appId}].enabled`, change: "changed", before: true, after: false }],
      },
    });

    const put = await api("PUT", "/v1/admin/config", { key, body: file, headers: { "If-Match": etag } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const body = put.body as { etag: string; applied: unknown[] };
    expect(body.applied).toEqual([
      ...(diff.body as { diff: { policy: unknown[]; catalog: unknown[]; apps: unknown[] } }).diff.policy,
      ...(diff.body as { diff: { catalog: unknown[] } }).diff.catalog,
      ...(diff.body as { diff: { apps: unknown[] } }).diff.apps,
    ]);
    const after = await exported(key);
    expect(after.document).toEqual(file);
    expect(after.etag).toBe(body.etag);
    expect(after.etag).not.toBe(etag);
    // The stored model key was kept through the mask, and each route reads the change.
    const policy = await api("GET", "/v1/admin/policy", { key });
    expect(policy.body).toMatchObject({
      policy: { roles: { clerk: { entries: [entry] } }, models: { planner: { apiKey: "********" } } },
    });
    const apps = await api("GET", "/v1/admin/apps", { key });
    expect((apps.body as { apps: Array<{ enabled: boolean }> }).apps[0]!.enabled).toBe(false);
    const events = (await readAudit(tenantId)).filter((e) => e.type === "config_imported");
    expect(events).toHaveLength(1);
    expect(events[0]!.detail).toMatchObject({ changes: 3 });

    // Importing the same file again changes nothing; a stale If-Match is refused.
    const again = await api("PUT", "/v1/admin/config", { key, body: file });
    expect(again.body).toMatchObject({ applied: [], etag: after.etag });
    const stale = await api("PUT", "/v1/admin/config", {
      key,
      body: document,
      headers: { "If-Match": etag },
    });
    expectError(stale, 412, "precondition_failed");
    expect((await exported(key)).etag).toBe(after.etag);
  });

  it("refuses a document with a bad field, naming it, and applies nothing of it", async () => {
    const { key, tenantId } = await world();
    const before = await exported(key);
    const file = edited(before.document);
    const fn = Object.keys(file.apps[0]!.versions[0]!.bindings)[0]!;
    file.apps[0]!.versions[0]!.bindings[fn] = "nope.none";
    const refused = await api("PUT", "/v1/admin/config", { key, body: file });
    expectError(refused, 400, "invalid_request");
    expect((refused.body as { error: { details: unknown } }).error.details).toEqual([
      { field: `body.apps.0.versions.0.bindings.${fn}`, message: 'no catalog entry "nope.none"' },
    ]);
    // Nothing of it applied: not the policy, the catalog nor the app's state, which were valid.
    const still = await exported(key);
    expect(still.document).toEqual(before.document);
    expect(still.etag).toBe(before.etag);
    expect((await readAudit(tenantId)).some((e) => e.type === "config_imported")).toBe(false);
    // The diff names the same problem without applying it.
    const diff = await api("POST", "/v1/admin/config/diff", { key, body: file });
    expect((diff.body as { problems: unknown[] }).problems).toHaveLength(1);

    // Control: the same document with that one field set right is applied, all of it.
    file.apps[0]!.versions[0]!.bindings[fn] = before.document.apps[0]!.versions[0]!.bindings[fn]!;
    const applied = await api("PUT", "/v1/admin/config", { key, body: file });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await exported(key)).document).toEqual(file);
  });

  it("names the field of a document that fails its schema, and of one written for another manifest", async () => {
    const { key } = await world();
    const { document } = await exported(key);
    const bad = structuredClone(document) as unknown as { catalog: { entries: Array<{ request: unknown }> } };
    bad.catalog.entries[1]!.request = "not a schema";
    const res = await api("PUT", "/v1/admin/config", { key, body: bad });
    expectError(res, 400, "invalid_request");
    const fields = (res.body as { error: { details: Array<{ field: string }> } }).error.details.map(
      (d) => d.field,
    );
    expect(fields).toEqual(["body.catalog.entries.1.request"]);

    const other = structuredClone(document);
    other.apps[0]!.versions[0]!.manifestDigest = `sha256:${"0".repeat(64)}`;
    const digest = await api("PUT", "/v1/admin/config", { key, body: other });
    expectError(digest, 400, "invalid_request");
    expect((digest.body as { error: { details: Array<{ field: string }> } }).error.details[0]!.field).toBe(
      "body.apps.0.versions.0.manifestDigest",
    );
    const secret = structuredClone(document);
    (secret.policy.models as Record<string, { apiKey?: string }>).planner!.apiKey = "sk-plain";
    const key2 = await api("PUT", "/v1/admin/config", { key, body: secret });
    expectError(key2, 400, "invalid_request");
    expect(JSON.stringify(key2.body)).toContain("body.policy.models.planner.apiKey");
  });

  it("approves a pending version from the file, checked as the approve route checks it", async () => {
    const tenant = await createTenant();
    const key = tenant.adminKey;
    const dev = (await issueKey(tenant, "developer")).secret;
    expect((await api("PUT", "/v1/admin/catalog", { key, body: { entries: CATALOG } })).status).toBe(200);
    const app = await registerDemoApp(tenant, dev, "bank", "config", { approve: false });
    const { document } = await exported(key);
    expect(document.apps).toEqual([
      expect.objectContaining({
        appId: app.id,
        versions: [expect.objectContaining({ version: 1, status: "pending", clearance: null, bindings: {} })],
      }),
    ]);
    const file = structuredClone(document);
    Object.assign(file.apps[0]!.versions[0]!, { status: "approved", clearance: "galactic", bindings: BANK });
    const refused = await api("PUT", "/v1/admin/config", { key, body: file });
    expectError(refused, 400, "invalid_request");
    expect((refused.body as { error: { details: unknown } }).error.details).toEqual([
      { field: "body.apps.0.versions.0.clearance", message: "one of public, internal, confidential, secret" },
    ]);
    expect((await exported(key)).document).toEqual(document);

    file.apps[0]!.versions[0]!.clearance = "confidential";
    const put = await api("PUT", "/v1/admin/config", { key, body: file });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const apps = (await api("GET", "/v1/admin/apps", { key })).body as {
      apps: Array<{ serving: number | null; versions: Array<{ clearance: string; bindings: unknown }> }>;
    };
    expect(apps.apps[0]).toMatchObject({
      serving: 1,
      versions: [{ clearance: "confidential", bindings: BANK }],
    });
    expect((await exported(key)).document).toEqual(file);
    // A review is not undone by a file.
    const undo = structuredClone(file);
    Object.assign(undo.apps[0]!.versions[0]!, { status: "pending", clearance: null, bindings: {} });
    const refusedUndo = await api("PUT", "/v1/admin/config", { key, body: undo });
    expectError(refusedUndo, 400, "invalid_request");
    expect(JSON.stringify(refusedUndo.body)).toContain("body.apps.0.versions.0.status");
  });

  it("audits an import's approval and disabling as the routes do, marked as the import's", async () => {
    const tenant = await createTenant();
    const key = tenant.adminKey;
    const dev = (await issueKey(tenant, "developer")).secret;
    expect((await api("PUT", "/v1/admin/catalog", { key, body: { entries: CATALOG } })).status).toBe(200);
    const app = await registerDemoApp(tenant, dev, "bank", "config", { approve: false });
    const { document } = await exported(key);
    const decisions = ["app_approved", "app_rejected", "app_enabled", "app_disabled", "app_bindings_changed"];
    const decided = async (since: number) =>
      (await readAudit(tenant.tenantId, { seq: since })).filter((e) => decisions.includes(e.type));
    const lastSeq = async () => (await readAudit(tenant.tenantId)).at(-1)!.seq;

    // Control: the document as exported changes nothing, and no decision is audited.
    const start = await lastSeq();
    const none = await api("PUT", "/v1/admin/config", { key, body: document });
    expect(none.body).toMatchObject({ applied: [] });
    expect(await decided(start)).toEqual([]);

    const file = structuredClone(document);
    Object.assign(file.apps[0]!.versions[0]!, {
      status: "approved",
      clearance: "confidential",
      bindings: BANK,
    });
    file.apps[0]!.enabled = false;
    const before = await lastSeq();
    const put = await api("PUT", "/v1/admin/config", { key, body: file });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const rows = await decided(before);
    const destinations = file.apps[0]!.versions[0]!.destinations;
    expect(rows.map((e) => [e.type, e.detail])).toEqual([
      ["app_disabled", { appId: app.id, via: "config_import" }],
      [
        "app_approved",
        {
          appId: app.id,
          version: 1,
          approve: true,
          clearance: "confidential",
          bindings: BANK,
          destinations,
          via: "config_import",
        },
      ],
    ]);
    // The summary row is still written beside them.
    const all = await readAudit(tenant.tenantId, { seq: before });
    expect(all.filter((e) => e.type === "config_imported")).toHaveLength(1);

    // The same decisions through their routes, in another tenant: the same rows, less the marker.
    const other = await createTenant("other");
    const otherDev = (await issueKey(other, "developer")).secret;
    const catalog = await api("PUT", "/v1/admin/catalog", {
      key: other.adminKey,
      body: { entries: CATALOG },
    });
    expect(catalog.status).toBe(200);
    const routed = await registerDemoApp(other, otherDev, "bank", "config", {
      clearance: "confidential",
      bindings: BANK,
      approval: { destinations },
    });
    const off = await api("POST", `/v1/admin/apps/${routed.id}/disable`, { key: other.adminKey });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const viaRoutes = (await readAudit(other.tenantId)).filter((e) => decisions.includes(e.type));
    const unmarked = (d: unknown) => {
      const { via: _, ...rest } = d as Record<string, unknown>;
      return { ...rest, appId: "app" };
    };
    expect(viaRoutes.map((e) => [e.type, unmarked(e.detail)])).toEqual(
      [...rows].reverse().map((e) => [e.type, unmarked(e.detail)]),
    );

    // Importing the same file again changes nothing, and audits no decision again.
    const again = await lastSeq();
    const same = await api("PUT", "/v1/admin/config", { key, body: file });
    expect(same.body).toMatchObject({ applied: [] });
    expect(await decided(again)).toEqual([]);
  });
});
