import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { beginAppCall, servingState } from "../../src/objects/tenant-replica/index.ts";
import { api, createTenant, expectError, issueKey, type TestTenant } from "./helpers.ts";

const obj = { type: "object" };

function manifest(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    description: `The ${name} app`,
    version: "1.0.0",
    endpoint: "http://127.0.0.1:8788/w/test/echo",
    functionalities: [
      {
        name: "ping",
        description: "Answers pong",
        request: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        response: obj,
      },
    ],
    ...overrides,
  };
}

async function setup(): Promise<{ tenant: TestTenant; dev: string; dev2: string; frontend: string }> {
  const tenant = await createTenant();
  return {
    tenant,
    dev: (await issueKey(tenant, "developer")).secret,
    dev2: (await issueKey(tenant, "developer", "other developer")).secret,
    frontend: (await issueKey(tenant, "frontend")).secret,
  };
}

/** What planners and spokes can see: the tenant's serving apps. */
async function servingNames(tenant: TestTenant): Promise<string[]> {
  // This isolate's replica: every write through the API here reaches it at once.
  const { apps } = await servingState(env, tenant.tenantId);
  return apps.filter((a) => !a.app.drifted).map((a) => `${a.app.name}@${a.app.version}`);
}

describe("app registration and review", () => {
  it("goes registration → pending (invisible) → approved (serving), and shows the secret once", async () => {
    const { tenant, dev } = await setup();
    const created = await api("POST", "/v1/apps", { key: dev, body: manifest("echo") });
    expect(created.status).toBe(201);
    const app = created.body as { id: string; version: number; status: string; secret: string };
    expect(app).toMatchObject({ version: 1, status: "pending" });
    expect(app.secret).toMatch(/^whsec_/);
    expect(await servingNames(tenant)).toEqual([]);

    const read = await api("GET", `/v1/apps/${app.id}`, { key: dev });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(app.secret);

    const pending = await api("GET", "/v1/admin/apps?status=pending", { key: tenant.adminKey });
    expect((pending.body as { apps: Array<{ id: string }> }).apps.map((a) => a.id)).toEqual([app.id]);
    const approved = await api("POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {
      key: tenant.adminKey,
      body: {},
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      serving: 1,
      versions: [{ status: "approved", clearance: "internal" }],
    });
    expect(await servingNames(tenant)).toEqual(["echo@1"]);
    const again = await api("POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {
      key: tenant.adminKey,
      body: {},
    });
    expectError(again, 409, "conflict");
  });

  it("never serves rejected or disabled apps", async () => {
    const { tenant, dev } = await setup();
    const a = (await api("POST", "/v1/apps", { key: dev, body: manifest("rejected-app") })).body as {
      id: string;
    };
    const b = (await api("POST", "/v1/apps", { key: dev, body: manifest("disabled-app") })).body as {
      id: string;
    };
    const rejected = await api("POST", `/v1/admin/apps/${a.id}/versions/1/reject`, {
      key: tenant.adminKey,
      body: { reason: "asks for too much" },
    });
    expect(rejected.body).toMatchObject({
      serving: null,
      versions: [{ status: "rejected", reason: "asks for too much" }],
    });
    await api("POST", `/v1/admin/apps/${b.id}/versions/1/approve`, { key: tenant.adminKey, body: {} });
    expect(await servingNames(tenant)).toEqual(["disabled-app@1"]);
    const disabled = await api("POST", `/v1/admin/apps/${b.id}/disable`, { key: tenant.adminKey });
    expect(disabled.body).toMatchObject({ enabled: false, serving: null });
    expect(await servingNames(tenant)).toEqual([]);
    await api("POST", `/v1/admin/apps/${b.id}/enable`, { key: tenant.adminKey });
    expect(await servingNames(tenant)).toEqual(["disabled-app@1"]);
  });

  it("keeps the approved version serving while a new one waits for review", async () => {
    const { tenant, dev } = await setup();
    const { id } = (await api("POST", "/v1/apps", { key: dev, body: manifest("versioned") })).body as {
      id: string;
    };
    await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: tenant.adminKey, body: {} });
    const v2 = await api("PUT", `/v1/apps/${id}`, {
      key: dev,
      body: manifest("versioned", { version: "2.0.0" }),
    });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      serving: 1,
      versions: [{ status: "approved" }, { status: "pending", label: "2.0.0" }],
    });
    expect(await servingNames(tenant)).toEqual(["versioned@1"]);
    await api("POST", `/v1/admin/apps/${id}/versions/2/approve`, {
      key: tenant.adminKey,
      body: { clearance: "secret" },
    });
    expect(await servingNames(tenant)).toEqual(["versioned@2"]);
    const renamed = await api("PUT", `/v1/apps/${id}`, { key: dev, body: manifest("other-name") });
    expect(expectError(renamed, 400).details).toEqual([expect.objectContaining({ field: "body.name" })]);
  });

  it("serves a newly approved version's manifest to calls at once, though the old one was decoded", async () => {
    const { tenant, dev } = await setup();
    const { id } = (await api("POST", "/v1/apps", { key: dev, body: manifest("growing") })).body as {
      id: string;
    };
    await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: tenant.adminKey, body: {} });
    const begin = (functionality: string, version: number | undefined) =>
      beginAppCall(env, tenant.tenantId, { appId: id, functionality, version });
    // v1 decoded and held by this isolate's replica: it has no "echo".
    expect(await begin("ping", undefined)).toMatchObject({ ok: true });
    expect(await begin("echo", undefined)).toMatchObject({
      code: "unknown_functionality",
    });
    const echo = { name: "echo", description: "Echoes", request: obj, response: obj };
    const [ping] = manifest("growing").functionalities;
    await api("PUT", `/v1/apps/${id}`, {
      key: dev,
      body: manifest("growing", { version: "2.0.0", functionalities: [ping, echo] }),
    });
    // Pending: still v1's manifest.
    expect(await begin("echo", undefined)).toMatchObject({
      code: "unknown_functionality",
    });
    await api("POST", `/v1/admin/apps/${id}/versions/2/approve`, { key: tenant.adminKey, body: {} });
    expect(await begin("echo", 2)).toMatchObject({ ok: true, app: { version: 2 } });
    expect(await begin("ping", 1)).toMatchObject({ code: "app_changed" });
    const [served] = (await servingState(env, tenant.tenantId)).view.apps;
    expect(served?.manifest.functionalities.map((f) => f.name)).toEqual(["ping", "echo"]);
  });

  it("approves with the default clearance when the body is left out", async () => {
    const { tenant, dev } = await setup();
    const { id } = (await api("POST", "/v1/apps", { key: dev, body: manifest("no-body") })).body as {
      id: string;
    };
    const approved = await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: tenant.adminKey });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ serving: 1, versions: [{ clearance: "internal" }] });
  });

  it("refuses a second app with a taken name (409)", async () => {
    const { dev, dev2 } = await setup();
    expect((await api("POST", "/v1/apps", { key: dev, body: manifest("taken") })).status).toBe(201);
    expectError(await api("POST", "/v1/apps", { key: dev2, body: manifest("taken") }), 409, "conflict");
  });
});

describe("manifest checks name the field", () => {
  async function refused(body: unknown): Promise<string[]> {
    const { dev } = await setup();
    const res = await api("POST", "/v1/apps", { key: dev, body });
    const error = expectError(res, 400, "invalid_request");
    return (error.details as Array<{ field: string }>).map((d) => d.field);
  }

  it("refuses a broken JSON Schema", async () => {
    const bad = manifest("bad-schema");
    (bad.functionalities[0] as { request: unknown }).request = {
      type: "object",
      properties: { a: { type: "strin" } },
    };
    expect(await refused(bad)).toContain("body.functionalities.0.request");
  });

  it("refuses a non-object root schema", async () => {
    const bad = manifest("bad-root");
    (bad.functionalities[0] as { response: unknown }).response = { type: "string" };
    expect(await refused(bad)).toContain("body.functionalities.0.response");
  });

  it("refuses duplicate functionality names", async () => {
    const one = manifest("dupes").functionalities[0]!;
    expect(await refused(manifest("dupes", { functionalities: [one, one] }))).toContain(
      "body.functionalities.1.name",
    );
  });

  it("refuses non-HTTPS endpoints other than loopback in dev, and private addresses", async () => {
    expect(await refused(manifest("plain", { endpoint: "http://apps.example.com/x" }))).toContain(
      "body.endpoint",
    );
    expect(await refused(manifest("private", { endpoint: "https://10.0.0.8/x" }))).toContain("body.endpoint");
    expect(await refused(manifest("metadata", { endpoint: "https://169.254.169.254/x" }))).toContain(
      "body.endpoint",
    );
  });

  it("refuses unknown label levels and bad names", async () => {
    const bad = manifest("Bad Name");
    (bad.functionalities[0] as { output?: unknown }).output = { confidentiality: "top-secret" };
    const fields = await refused(bad);
    expect(fields).toContain("body.name");
    const levels = manifest("levels");
    (levels.functionalities[0] as { output?: unknown }).output = { confidentiality: "top-secret" };
    expect(await refused(levels)).toContain("body.functionalities.0.output.confidentiality");
  });
});

describe("who may do what with apps", () => {
  it("shows a developer only their own apps and lets no developer review", async () => {
    const { tenant, dev, dev2, frontend } = await setup();
    const { id } = (await api("POST", "/v1/apps", { key: dev, body: manifest("mine") })).body as {
      id: string;
    };
    expectError(await api("GET", `/v1/apps/${id}`, { key: dev2 }), 404, "not_found");
    expectError(await api("PUT", `/v1/apps/${id}`, { key: dev2, body: manifest("mine") }), 404, "not_found");
    const approve = await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: dev, body: {} });
    expectError(approve, 403, "forbidden");
    expectError(await api("POST", "/v1/apps", { key: frontend, body: manifest("x") }), 403, "forbidden");
    expectError(
      await api("POST", "/v1/apps", { key: tenant.adminKey, body: manifest("x") }),
      403,
      "forbidden",
    );
    expect(await servingNames(tenant)).toEqual([]);
  });

  it("lists a developer's own apps and no one else's", async () => {
    const { dev, dev2 } = await setup();
    for (const name of ["zeta", "alpha"]) await api("POST", "/v1/apps", { key: dev, body: manifest(name) });
    await api("POST", "/v1/apps", { key: dev2, body: manifest("theirs") });
    const mine = (await api("GET", "/v1/apps", { key: dev })).body as { apps: Array<{ name: string }> };
    expect(mine.apps.map((a) => a.name)).toEqual(["alpha", "zeta"]);
    const theirs = (await api("GET", "/v1/apps", { key: dev2 })).body as { apps: Array<{ name: string }> };
    expect(theirs.apps.map((a) => a.name)).toEqual(["theirs"]);
  });

  it("keeps another tenant's apps out of reach (404)", async () => {
    const a = await setup();
    const b = await setup();
    const { id } = (await api("POST", "/v1/apps", { key: b.dev, body: manifest("theirs") })).body as {
      id: string;
    };
    expectError(
      await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: a.tenant.adminKey, body: {} }),
      404,
    );
    expectError(await api("GET", `/v1/apps/${id}`, { key: a.dev }), 404);
  });
});
