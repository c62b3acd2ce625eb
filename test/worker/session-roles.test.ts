/**
 * A user token's roles bind every use of a session, not only its opening: a session the frontend key
 * opened with roles the token does not grant is not there for the token (404, as if absent), on every
 * route that takes a session id and at the hub itself.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { api, createTenant, issueKey } from "./helpers.ts";

async function world() {
  const tenant = await createTenant();
  const frontend = (await issueKey(tenant, "frontend")).secret;
  const policy = {
    roles: { staff: { entries: ["a.b"] }, finance: { entries: ["c.d"] } },
    defaultRoles: ["staff"],
  };
  expect((await api("PUT", "/v1/admin/policy", { key: tenant.adminKey, body: policy })).status).toBe(200);
  // The product's server opens a finance session for alice: more than her browser's token grants.
  const opened = await api("POST", "/v1/sessions", {
    key: frontend,
    body: { userId: "alice", roles: ["finance"] },
  });
  expect(opened.status).toBe(201);
  const token = async (roles: string[]) => {
    const res = await api("POST", "/v1/users/alice/tokens", { key: frontend, body: { roles } });
    return (res.body as { token: string }).token;
  };
  return { tenant, frontend, sid: (opened.body as { id: string }).id, token };
}

/** Each use of the session, with what it answers when the session is there for the caller. */
const uses = (sid: string) =>
  [
    { method: "POST", path: `/v1/sessions/${sid}/queries`, body: { text: "hi" }, allowed: 202 },
    { method: "GET", path: `/v1/sessions/${sid}/queries/q_0123456789abcdef01234567`, allowed: 404 },
    { method: "GET", path: `/v1/sessions/${sid}/consents`, allowed: 200 },
    {
      method: "POST",
      path: `/v1/sessions/${sid}/consents/c_0123456789abcdef`,
      body: { decision: "deny" },
      allowed: 404,
    },
    { method: "GET", path: `/v1/sessions/${sid}/events`, allowed: 200, stream: true },
    {
      method: "POST",
      path: `/v1/sessions/${sid}/queries`,
      body: { text: "hi" },
      allowed: 200,
      stream: true,
      headers: { Accept: "text/event-stream" },
    },
  ] as const;

async function use(key: string, u: ReturnType<typeof uses>[number]) {
  const headers = "headers" in u ? u.headers : undefined;
  const res = await api(u.method, u.path, {
    key,
    ...("body" in u && { body: u.body }),
    ...(headers && { headers }),
    ...("stream" in u && { stream: true }),
  });
  if (res.response.ok && "stream" in u) await res.response.body?.cancel();
  const message = (res.body as { error?: { message: string } } | null)?.error?.message;
  return { status: res.status, sessionMissing: res.status === 404 && message === "session not found" };
}

describe("a user token's roles", () => {
  it("bind every use of a session the frontend key opened with roles the token lacks (404)", async () => {
    const w = await world();
    const staff = await w.token(["staff"]);
    for (const u of uses(w.sid)) {
      expect(await use(staff, u), `${u.method} ${u.path}`).toEqual({ status: 404, sessionMissing: true });
    }
    for (const path of ["/v1/openai/chat/completions", "/v1/ai-sdk/chat"]) {
      const body = path.includes("openai")
        ? { model: "lattice", messages: [{ role: "user", content: "hi" }] }
        : { id: "chat1", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }] };
      const res = await api("POST", path, { key: staff, body, headers: { "X-Lattice-Session": w.sid } });
      expect(res.status, path).toBe(404);
    }
    const queries = await rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, w.sid))).events(0);
    expect(queries.filter((e) => e.type === "query_started")).toEqual([]); // nothing started in it
  });

  it("control: the same uses by a token granting the session's roles reach the session", async () => {
    const w = await world();
    const finance = await w.token(["staff", "finance"]);
    for (const u of uses(w.sid)) {
      expect(await use(finance, u), `${u.method} ${u.path}`).toEqual({
        status: u.allowed,
        sessionMissing: false,
      });
    }
  });

  it("bind a start at the hub too: the caller's roles must cover the session's", async () => {
    const w = await world();
    const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, w.sid)));
    const manual = { stepping: "manual" } as const;
    expect(await hub.startQuery("hi", null, manual, { userId: "alice", roles: ["staff"] })).toMatchObject({
      ok: false,
      code: "no_session",
    });
    // Control: the same start with the session's roles, or by a tenant-wide key (null), is taken.
    expect(await hub.startQuery("hi", null, manual, { userId: "alice", roles: ["finance"] })).toMatchObject({
      ok: true,
    });
    expect(await hub.startQuery("hi", null, manual, null)).toMatchObject({ ok: true });
  });
});
