/**
 * The tenant boundary at the edge: user tokens reach one user's resources only; forged API keys
 * reach no Durable Object at all; CORS answers only user tokens from listed origins.
 */
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName, tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { api, createTenant, expectError, issueKey, OPERATOR_SECRET } from "./helpers.ts";

async function world() {
  const tenant = await createTenant();
  const frontend = (await issueKey(tenant, "frontend")).secret;
  const session = async (userId: string, key = frontend) => {
    const res = await api("POST", "/v1/sessions", { key, body: { userId } });
    return res;
  };
  const bobSession = ((await session("bob")).body as { id: string }).id;
  const token = async (userId: string, body: unknown = {}) => {
    const res = await api("POST", `/v1/users/${userId}/tokens`, { key: frontend, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { token: string }).token;
  };
  return { tenant, frontend, session, bobSession, token };
}

/** Every route a user's resources are reachable by, for one session and one user. */
const routes = (sid: string, userId: string) => [
  ["GET", `/v1/sessions/${sid}/consents`],
  ["GET", `/v1/sessions/${sid}/queries/q_0123456789abcdef01234567`],
  ["POST", `/v1/sessions/${sid}/queries`],
  ["GET", `/v1/users/${userId}/artifacts`],
  ["GET", `/v1/users/${userId}/artifacts/a_x`],
  ["DELETE", `/v1/users/${userId}/artifacts/a_x`],
  ["GET", `/v1/users/${userId}/grants`],
  ["DELETE", `/v1/users/${userId}/grants/g_x`],
];

describe("a user token", () => {
  it("reaches none of another user's session, queries, consents, artifacts or grants (404)", async () => {
    const w = await world();
    const alice = await w.token("alice");
    for (const [method, path] of routes(w.bobSession, "bob")) {
      const res = await api(method!, path!, {
        key: alice,
        ...(method === "POST" && { body: { text: "hi" } }),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await w.session("bob", alice)).status).toBe(404);
    const hub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, w.bobSession));
    const queries = await runInDurableObject(hub, (_i, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM queries").one(),
    );
    expect(queries.n).toBe(0); // the refused POST left nothing in bob's session
  });

  it("cannot start a query in another user's session at the hub either (caller); its own user can", async () => {
    const w = await world();
    const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, w.bobSession)));
    const [alice, bob] = [
      { userId: "alice", roles: [] },
      { userId: "bob", roles: [] },
    ];
    expect(await hub.startQuery("hi", null, { stepping: "manual" }, alice)).toMatchObject({
      ok: false,
      code: "no_session",
    });
    // The control: the same start as the session's own user (or a tenant-wide key, null) is taken.
    expect(await hub.startQuery("hi", null, { stepping: "manual" }, bob)).toMatchObject({ ok: true });
    expect(await hub.startQuery("hi", null, { stepping: "manual" }, null)).toMatchObject({ ok: true });
  });

  it("control: the frontend key (server-side, tenant-wide) reaches both users", async () => {
    const w = await world();
    expect((await api("GET", `/v1/sessions/${w.bobSession}/consents`, { key: w.frontend })).status).toBe(200);
    expect((await api("GET", "/v1/users/bob/grants", { key: w.frontend })).status).toBe(200);
    expect((await api("GET", "/v1/users/alice/grants", { key: w.frontend })).status).toBe(200);
  });

  it("works for its own user: a session, its consents, its artifacts", async () => {
    const w = await world();
    const alice = await w.token("alice");
    const created = await w.session("alice", alice);
    expect(created.status).toBe(201);
    const sid = (created.body as { id: string }).id;
    expect((await api("GET", `/v1/sessions/${sid}/consents`, { key: alice })).status).toBe(200);
    expect((await api("GET", "/v1/users/alice/artifacts", { key: alice })).status).toBe(200);
  });

  it("is refused expired or tampered (401), and cannot issue tokens or reach admin routes (403)", async () => {
    const w = await world();
    const alice = await w.token("alice");
    const [lu, tenant, payload, mac] = alice.split(".") as [string, string, string, string];
    const claims = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/"))) as Record<
      string,
      unknown
    >;
    const forged = btoa(JSON.stringify({ ...claims, u: "bob" }))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expectError(await api("GET", "/v1/users/bob/grants", { key: `${lu}.${tenant}.${forged}.${mac}` }), 401);
    const expired = await w.token("alice", { ttlSeconds: 60 });
    const late = Date.now() + 61_000;
    const realNow = Date.now;
    Date.now = () => late;
    try {
      expectError(await api("GET", "/v1/users/alice/grants", { key: expired }), 401);
    } finally {
      Date.now = realNow;
    }
    expectError(await api("POST", "/v1/users/alice/tokens", { key: alice, body: {} }), 403, "forbidden");
    expectError(await api("GET", "/v1/admin/policy", { key: alice }), 403, "forbidden");
  });

  it("ends with the key that issued it: that key revoked, its tokens are refused (401)", async () => {
    const tenant = await createTenant();
    const issuer = await issueKey(tenant, "frontend");
    const other = await issueKey(tenant, "frontend", "other");
    const mint = async (key: string) =>
      ((await api("POST", "/v1/users/alice/tokens", { key, body: {} })).body as { token: string }).token;
    const doomed = await mint(issuer.secret);
    const kept = await mint(other.secret);
    expect((await api("GET", "/v1/users/alice/grants", { key: doomed })).status).toBe(200);
    expect((await api("DELETE", `/v1/admin/keys/${issuer.id}`, { key: tenant.adminKey })).status).toBe(200);
    const refused = expectError(
      await api("GET", "/v1/users/alice/grants", { key: doomed }),
      401,
      "unauthorized",
    );
    expect(refused.message).toContain("revoked");
    // Control: a token another key issued still works.
    expect((await api("GET", "/v1/users/alice/grants", { key: kept })).status).toBe(200);
  });

  it("bounds a session's roles to the token's", async () => {
    const w = await world();
    const put = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: {
        roles: { staff: { entries: ["a.b"] }, finance: { entries: ["c.d"] } },
        defaultRoles: ["staff"],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const staff = await w.token("alice", { roles: ["staff"] });
    const asked = await api("POST", "/v1/sessions", {
      key: staff,
      body: { userId: "alice", roles: ["finance"] },
    });
    expectError(asked, 403, "forbidden");
    const given = await api("POST", "/v1/sessions", { key: staff, body: { userId: "alice" } });
    expect(given.body).toMatchObject({ roles: ["staff"] });
  });
});

describe("a forged API key", () => {
  const junk = (i: number) => `lk.t_${i.toString(16).padStart(24, "0")}.${"A".repeat(43)}`;

  it("for random tenant ids reaches no Durable Object: 10,000 requests create none", async () => {
    const before = (await listDurableObjectIds(env.TENANT)).length;
    for (let batch = 0; batch < 100; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => api("GET", "/v1/admin/keys", { key: junk(batch * 100 + i) })),
      );
      expect(answers.every((a) => a.status === 401)).toBe(true);
    }
    expect((await listDurableObjectIds(env.TENANT)).length).toBe(before);
  }, 60_000);

  it("control: the same keys checked by the TenantDO (as before the edge tag) create an object each", async () => {
    const before = (await listDurableObjectIds(env.TENANT)).length;
    for (let i = 0; i < 5; i++) {
      const key = junk(1_000_000 + i);
      const tenantId = key.split(".")[1]!;
      await env.TENANT.getByName(tenantObjectName(tenantId)).authenticate(key);
    }
    expect((await listDurableObjectIds(env.TENANT)).length).toBe(before + 5);
  });
});

describe("CORS", () => {
  async function corsWorld() {
    const w = await world();
    await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { cors: { origins: ["https://chat.acme.test"] } },
    });
    return { ...w, alice: await w.token("alice") };
  }
  const from = (origin: string, key: string) =>
    api("GET", "/v1/users/alice/grants", { key, headers: { Origin: origin } });

  it("lets a listed origin read a user token's answers, and no one else", async () => {
    const w = await corsWorld();
    const ok = await from("https://chat.acme.test", w.alice);
    expect(ok.response.headers.get("Access-Control-Allow-Origin")).toBe("https://chat.acme.test");
    expect(
      (await from("https://evil.test", w.alice)).response.headers.get("Access-Control-Allow-Origin"),
    ).toBeNull();
    // An API key never gets CORS, from any origin: it must not live in a browser.
    expect(
      (await from("https://chat.acme.test", w.frontend)).response.headers.get("Access-Control-Allow-Origin"),
    ).toBeNull();
  });

  it("answers a preflight", async () => {
    const res = await api("OPTIONS", "/v1/users/alice/grants", {
      headers: { Origin: "https://chat.acme.test" },
    });
    expect(res.status).toBe(204);
    expect(res.response.headers.get("Access-Control-Allow-Headers")).toContain("Authorization");
  });

  it("lets a browser send the OpenAI SDK's headers and X-Lattice-Session, and read the session header", async () => {
    const pre = await api("OPTIONS", "/v1/openai/chat/completions", {
      headers: {
        Origin: "https://chat.acme.test",
        "Access-Control-Request-Headers": "authorization, x-stainless-os, x-stainless-retry-count, x-evil",
      },
    });
    const allowed = pre.response.headers.get("Access-Control-Allow-Headers") ?? "";
    expect(allowed).toContain("X-Lattice-Session");
    expect(allowed).toContain("x-stainless-os");
    expect(allowed).not.toContain("x-evil"); // only the SDK's own names are echoed
    const w = await corsWorld();
    const read = await from("https://chat.acme.test", w.alice);
    expect(read.response.headers.get("Access-Control-Expose-Headers")).toContain("X-Lattice-Session");
  });
});

describe("the per-credential rate limit", () => {
  it("answers 429 with Retry-After under a burst, for that credential only", async () => {
    const w = await world();
    let limited: Awaited<ReturnType<typeof api>> | undefined;
    // Past 1,200 in a burst: a window boundary may split it, and one side still holds more than 600.
    for (let i = 0; i < 1500 && !limited; i++) {
      const res = await api("GET", "/v1/users/alice/grants", { key: w.frontend });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    expect(limited, "no 429 within 1,500 requests").toBeDefined();
    expectError(limited!, 429, "rate_limited");
    expect(Number(limited!.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Control: another key of the same tenant is not limited by this one's burst.
    const other = (await issueKey(w.tenant, "frontend", "other")).secret;
    expect((await api("GET", "/v1/users/alice/grants", { key: other })).status).toBe(200);
  }, 60_000);
});

describe("the audit log", () => {
  it("names the key (and a user token's user) behind every write", async () => {
    const w = await world();
    const alice = await w.token("alice");
    await w.session("alice", alice);
    await api("PUT", "/v1/admin/policy", { key: w.tenant.adminKey, body: {} });
    const audit = await api("GET", "/v1/admin/audit", { key: w.tenant.adminKey });
    const writes = (
      audit.body as { events: Array<{ type: string; detail: Record<string, unknown> }> }
    ).events.filter((e) => e.type === "api_write");
    expect(writes.map((e) => e.detail)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          method: "POST",
          path: "/v1/sessions",
          viaUserToken: true,
          userId: "alice",
          status: 201,
        }),
        expect.objectContaining({ method: "PUT", path: "/v1/admin/policy", role: "admin", status: 200 }),
      ]),
    );
    expect(writes.every((e) => typeof e.detail.keyId === "string")).toBe(true);
  });
});

describe("recovering a tenant's access", () => {
  it("lets the operator issue a new admin key for an existing tenant, and only with its secret", async () => {
    const w = await world();
    const res = await api("POST", `/v1/operator/tenants/${w.tenant.tenantId}/keys`, {
      key: OPERATOR_SECRET,
      body: {},
    });
    expect(res.status).toBe(201);
    const key = (res.body as { secret: string }).secret;
    expect((await api("GET", "/v1/admin/keys", { key })).status).toBe(200);
    expectError(
      await api("POST", `/v1/operator/tenants/${w.tenant.tenantId}/keys`, { key: w.tenant.adminKey }),
      401,
    );
    expectError(
      await api("POST", "/v1/operator/tenants/tn_nosuchtenant/keys", { key: OPERATOR_SECRET }),
      404,
    );
  });
});

describe("a user token issued without roles", () => {
  it("opens sessions with the policy's default roles only, and refuses any asked for", async () => {
    const w = await world();
    const put = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { roles: { staff: { entries: ["a.b"] }, treasury: { entries: "*" } }, defaultRoles: ["staff"] },
    });
    expect(put.status).toBe(200);
    const plain = await w.token("alice");
    const asked = await api("POST", "/v1/sessions", {
      key: plain,
      body: { userId: "alice", roles: ["treasury"] },
    });
    expectError(asked, 403, "forbidden");
    // Control: the frontend key (the product's server) may open a treasury session for alice.
    const server = await api("POST", "/v1/sessions", {
      key: w.frontend,
      body: { userId: "alice", roles: ["treasury"] },
    });
    expect(server.status).toBe(201);
  });
});
