/**
 * An unknown session id creates nothing: every route naming one answers 404, and its hub, which any
 * call on the id constructs, is left with no table and no row.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HUB_LEGACY_LAYOUT, HUB_MIGRATIONS } from "../../src/objects/hub/migrations.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { migrate } from "../../src/objects/sql.ts";
import { api, createTenant, issueKey } from "./helpers.ts";

const randomSid = () =>
  `ses_${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * What the hub's storage holds: its tables and the database's size. Local workerd opens a database
 * file for any object it constructs (so it lists every id ever called); what an unknown id must not
 * leave is anything in it, which an object with no writes never keeps in production.
 */
async function storageOf(tenantId: string, sid: string): Promise<{ tables: string[]; bytes: number }> {
  const stub = env.HUB.getByName(hubObjectName(tenantId, sid));
  return runInDurableObject(stub, (_hub, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master")
      .toArray()
      .map((r) => r.name),
    bytes: state.storage.sql.databaseSize,
  }));
}

describe("an unknown session id", () => {
  it("answers 404 on every route that names it, and leaves no object", async () => {
    const tenant = await createTenant();
    const frontend = (await issueKey(tenant, "frontend")).secret;
    const sid = randomSid();
    const session = `/v1/sessions/${sid}`;
    const calls: Array<[string, string, unknown?, Record<string, string>?]> = [
      ["POST", `${session}/queries`, { text: "hi" }],
      ["POST", `${session}/queries`, { text: "hi" }, { Accept: "text/event-stream" }],
      ["GET", `${session}/queries/q_0123456789abcdef01234567`],
      ["GET", `${session}/events`],
      ["GET", `${session}/consents`],
      ["POST", `${session}/consents/c_0123456789abcdef`, { decision: "allow" }],
      [
        "POST",
        "/v1/openai/chat/completions",
        { model: "lattice", user: "alice", messages: [{ role: "user", content: "hi" }] },
        { "X-Lattice-Session": sid },
      ],
      [
        "POST",
        "/v1/ai-sdk/chat",
        {
          id: "c1",
          user: "alice",
          messages: [{ id: "m", role: "user", parts: [{ type: "text", text: "hi" }] }],
        },
        { "X-Lattice-Session": sid },
      ],
    ];
    for (const [method, path, body, headers] of calls) {
      const res = await api(method, path, { key: frontend, body, ...(headers && { headers }) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const left = await storageOf(tenant.tenantId, sid);
    expect(left.tables).toEqual([]);
    // As empty as a hub no request ever named.
    expect(left).toEqual(await storageOf(tenant.tenantId, randomSid()));
  });

  it("control: a hub that migrates on construction, as every hub did, is left behind with its tables", async () => {
    const tenant = await createTenant();
    const sid = randomSid();
    const stub = env.HUB.getByName(hubObjectName(tenant.tenantId, sid));
    // What the constructor did before any session check: the same migrations, on an unknown id.
    await runInDurableObject(stub, (_hub, state) =>
      migrate(state.storage, HUB_MIGRATIONS, HUB_LEGACY_LAYOUT),
    );
    const left = await storageOf(tenant.tenantId, sid);
    expect(left.tables).toContain("session");
    expect(left.bytes).toBeGreaterThan((await storageOf(tenant.tenantId, randomSid())).bytes);
  });

  it("control: opening a session creates its hub, which then answers", async () => {
    const tenant = await createTenant();
    const frontend = (await issueKey(tenant, "frontend")).secret;
    const opened = await api("POST", "/v1/sessions", { key: frontend, body: { userId: "alice" } });
    const sid = (opened.body as { id: string }).id;
    expect((await storageOf(tenant.tenantId, sid)).tables).toContain("session");
    expect((await api("GET", `/v1/sessions/${sid}/consents`, { key: frontend })).status).toBe(200);
  });
});
