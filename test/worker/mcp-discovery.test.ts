import { env } from "cloudflare:workers";
import { discoverOAuthProtectedResourceMetadata, type FetchLike } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { McpAuth } from "../../src/apps/manifest.ts";
import { api, expectError, issueKey } from "./helpers.ts";
import {
  ask,
  display,
  type HubWorld,
  hubWorld,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/** The OAuth fixture (test double): authorization server with RFC 7591 registration, and its MCP server. */
const AS = "http://127.0.0.1:8790";
const fixture = () => (env as unknown as { OAUTH_FIXTURE: Fetcher }).OAUTH_FIXTURE;
const RETURN_PAGE = "http://frontend.test/signed-in";
let n = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${n++}`;

async function fixtureLog(): Promise<Array<Record<string, unknown>>> {
  return (await (await fixture().fetch(`${AS}/_fixture/log`)).json()) as Array<Record<string, unknown>>;
}

async function register(w: HubWorld, url: string, auth: Record<string, unknown> = { type: "oauth" }) {
  const dev = (await issueKey(w.tenant, "developer")).secret;
  return api("POST", "/v1/apps", {
    key: dev,
    body: { name: unique("files"), description: "files over MCP", version: "1.0.0", mcp: { url, auth } },
  });
}

/** The registrations the fixture served for one app (its callback URL names the app). */
async function registrationsFor(appId: string): Promise<Array<Record<string, unknown>>> {
  const callback = `http://lattice.test/v1/oauth/callback/${appId}`;
  return (await fixtureLog()).filter(
    (e) => e.path === "/register" && Array.isArray(e.redirect_uris) && e.redirect_uris.includes(callback),
  );
}

/** Asks for `whoami` of `app` as `user`, in a new session: the query and its status once settled. */
async function askWhoami(w: HubWorld, app: string, user: string) {
  await script(w.models.planner, [
    { respond: { steps: [tool("me", `${app}.whoami`, {}), display(ref("me", "text"))] } },
  ]);
  const sid = await openSession(w, { userId: user });
  const qid = await ask(w, sid, `who am I to ${app}?`);
  return { sid, qid, settled: await settle(w, sid, qid) };
}

/** The user signs in at the consent's authorization URL (the fixture approves at once); the client it names. */
async function signIn(w: HubWorld, sid: string, user: string): Promise<string | null> {
  const [consent] = (await pendingConsents(w, sid)) as unknown as Array<{ authorization: { url: string } }>;
  const url = new URL(consent!.authorization.url);
  expect(url.origin + url.pathname).toBe(`${AS}/authorize`);
  const signedIn = await fixture().fetch(`${url.href}&login_hint=${user}`, { redirect: "manual" });
  const back = new URL(signedIn.headers.get("Location")!);
  const onward = await api("GET", back.pathname + back.search);
  expect(onward.status, JSON.stringify(onward.body)).toBe(303);
  const page = Object.fromEntries(new URL(onward.response.headers.get("Location")!).searchParams);
  const done = await api("POST", `/v1/users/${user}/authorizations`, { key: w.frontend, body: page });
  expect(done.body).toEqual({ authorized: true });
  return url.searchParams.get("client_id");
}

type Registered = {
  id: string;
  name: string;
  app: { versions: Array<{ manifest: { mcp: { auth: Record<string, unknown> } } }> };
};

describe("MCP authorization discovery (RFC 9728, RFC 8414) and dynamic registration (RFC 7591)", () => {
  it("registers the fixture server from its URL alone; a user connects and the call carries their token", async () => {
    const w = await hubWorld([], { oauth: { returnUrl: RETURN_PAGE } });
    const before = (await fixtureLog()).length;
    const res = await register(w, `${AS}/mcp`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const body = res.body as Registered;
    // The version under review names concrete endpoints and the client registered for it.
    const auth = body.app.versions[0]!.manifest.mcp.auth;
    expect(auth).toMatchObject({
      type: "oauth",
      authorizationUrl: `${AS}/authorize`,
      tokenUrl: `${AS}/token`,
      revocationUrl: `${AS}/revoke`,
      issuer: AS,
      discovered: {
        resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource`,
        authorizationServer: AS,
        registrationEndpoint: `${AS}/register`,
        redirectUri: `http://lattice.test/v1/oauth/callback/${body.id}`,
      },
    });
    expect(String(auth.clientId)).toMatch(/^fxclient_/);
    expect(JSON.stringify(body)).not.toContain("fxsecret"); // the registered secret is write-only
    const log = (await fixtureLog()).slice(before);
    const registration = log.find((e) => e.path === "/register");
    expect(registration?.status).toBe(201);
    expect(registration?.client_id).toBe(auth.clientId);
    // The tools were listed with the registered client (client credentials at the discovered token URL).
    expect(log.some((e) => e.grant_type === "client_credentials" && e.client_id === auth.clientId)).toBe(
      true,
    );

    expect(
      (await api("POST", `/v1/admin/apps/${body.id}/versions/1/approve`, { key: w.tenant.adminKey })).status,
    ).toBe(200);
    await script(w.models.planner, [
      { respond: { steps: [tool("me", `${body.name}.whoami`, {}), display(ref("me", "text"))] } },
    ]);
    const user = unique("u");
    const sid = await openSession(w, { userId: user });
    const qid = await ask(w, sid, "who am I to the files app?");
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    const [consent] = (await pendingConsents(w, sid)) as unknown as Array<{ authorization: { url: string } }>;
    const url = new URL(consent!.authorization.url);
    expect(url.origin + url.pathname).toBe(`${AS}/authorize`);
    expect(url.searchParams.get("client_id")).toBe(auth.clientId);
    // The browser signs in; the frontend completes it for its user.
    const signedIn = await fixture().fetch(`${url.href}&login_hint=${user}`, { redirect: "manual" });
    const back = new URL(signedIn.headers.get("Location")!);
    const onward = await api("GET", back.pathname + back.search);
    expect(onward.status, JSON.stringify(onward.body)).toBe(303);
    const page = Object.fromEntries(new URL(onward.response.headers.get("Location")!).searchParams);
    const done = await api("POST", `/v1/users/${user}/authorizations`, { key: w.frontend, body: page });
    expect(done.body).toEqual({ authorized: true });
    const q = await settle(w, sid, qid);
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(q.display[0]?.value).toBe(`you are ${user}`);
  });

  /**
   * Version 1 registered, approved, a user connected; then version 2 of the same app, at `url2`,
   * approved. What the fixture saw and what the user's next call needed. `forget`: the
   * authorization server deletes version 1's client before version 2 is sent; `name`: the app's.
   */
  async function secondVersion(url2: string, options: { forget?: boolean; name?: string } = {}) {
    const w = await hubWorld([], { oauth: { returnUrl: RETURN_PAGE } });
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const name = options.name ?? unique("files");
    const manifest = (url: string, version: string, description: string) => ({
      name,
      description,
      version,
      mcp: { url, auth: { type: "oauth" } },
    });
    const v1 = await api("POST", "/v1/apps", {
      key: dev,
      body: manifest(`${AS}/mcp`, "1.0.0", "files over MCP"),
    });
    expect(v1.status, JSON.stringify(v1.body)).toBe(201);
    const { id } = v1.body as Registered;
    const auth1 = (v1.body as Registered).app.versions[0]!.manifest.mcp.auth;
    const approve = (version: number) =>
      api("POST", `/v1/admin/apps/${id}/versions/${version}/approve`, { key: w.tenant.adminKey });
    expect((await approve(1)).status).toBe(200);
    const user = unique("u");
    const first = await askWhoami(w, name, user);
    expect(first.settled.status).toBe("awaiting_consent");
    expect(await signIn(w, first.sid, user)).toBe(auth1.clientId);
    expect((await settle(w, first.sid, first.qid)).display[0]?.value).toBe(`you are ${user}`);

    if (options.forget) {
      const forgotten = await fixture().fetch(`${AS}/_fixture/forget-client`, {
        method: "POST",
        body: JSON.stringify({ client_id: auth1.clientId }),
      });
      expect(await forgotten.json()).toEqual({ ok: true, forgotten: true });
    }
    const before = (await fixtureLog()).length;
    const v2 = await api("PUT", `/v1/apps/${id}`, {
      key: dev,
      body: manifest(url2, "2.0.0", "files over MCP, now with a better description"),
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    const app = v2.body as Registered["app"] & { serving: number | null };
    const auth2 = app.versions[1]!.manifest.mcp.auth;
    expect(JSON.stringify(v2.body)).not.toContain("fxsecret");
    expect((await approve(2)).status).toBe(200);
    const read = await api("GET", `/v1/apps/${id}`, { key: dev });
    expect((read.body as { serving: number }).serving).toBe(2);
    const second = await askWhoami(w, name, user);
    return { w, id, user, auth1, auth2, second, since: (await fixtureLog()).slice(before) };
  }

  it("keeps the client across versions: version 2 calls with the user's token, no new sign-in", async () => {
    const { id, user, auth1, auth2, second, since } = await secondVersion(`${AS}/mcp`);
    // Discovered again (the admin approves what the server says now), but the same client.
    expect(auth2).toEqual(auth1);
    expect(await registrationsFor(id)).toHaveLength(1);
    // Version 2's tools were listed as the kept client, with a client-credentials token only its
    // sealed secret gets (without the secret the import sends no token and the server refuses it).
    expect(
      since.some((e) => e.path === "/mcp" && e.rpc === "tools/list" && e.client_id === auth1.clientId),
    ).toBe(true);
    // The user's call under version 2 carries their token: no consent, no new sign-in.
    expect(second.settled.status, JSON.stringify(second.settled.error)).toBe("completed");
    expect(second.settled.display[0]?.value).toBe(`you are ${user}`);
    expect(since.some((e) => e.path === "/authorize")).toBe(false);
    expect(
      since.some(
        (e) =>
          e.path === "/mcp" && e.tool === "whoami" && e.subject === user && e.client_id === auth1.clientId,
      ),
    ).toBe(true);
  });

  it("control: version 2 at another server URL registers a new client, and the user signs in again", async () => {
    const { w, id, user, auth1, auth2, second, since } = await secondVersion(`${AS}/mcp-b`);
    expect(auth2.clientId).not.toBe(auth1.clientId);
    expect(auth2.discovered).toMatchObject({
      resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource/mcp-b`,
    });
    expect(await registrationsFor(id)).toHaveLength(2);
    expect(since.filter((e) => e.path === "/register").map((e) => e.client_id)).toContain(auth2.clientId);
    // The user's token was for /mcp and the old client: version 2 asks them to connect again.
    expect(second.settled.status).toBe("awaiting_consent");
    expect(await signIn(w, second.sid, user)).toBe(auth2.clientId);
    const done = await settle(w, second.sid, second.qid);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    expect(done.display[0]?.value).toBe(`you are ${user}`);
    expect(
      (await fixtureLog()).some(
        (e) =>
          e.path === "/mcp-b" && e.tool === "whoami" && e.subject === user && e.client_id === auth2.clientId,
      ),
    ).toBe(true);
  });

  it("replaces a kept client the authorization server forgot: version 2 registers a new one", async () => {
    const { w, id, user, auth1, auth2, second, since } = await secondVersion(`${AS}/mcp`, { forget: true });
    // The kept client was tried once and refused (RFC 6749 invalid_client: the fixture no longer
    // knows it, so it logs no client id), then a new one registered and the tools listed with it.
    const tokens = since.filter((e) => e.grant_type === "client_credentials");
    expect(tokens.map((e) => [e.status, e.error ?? null, e.client_id])).toEqual([
      [401, "invalid_client", null],
      [200, null, auth2.clientId],
    ]);
    const refused = since.indexOf(tokens[0]!);
    const registration = since.findIndex((e) => e.path === "/register");
    expect(registration).toBeGreaterThan(refused);
    expect(since.filter((e) => e.path === "/register")).toHaveLength(1);
    expect(since[registration]?.client_id).toBe(auth2.clientId);
    expect(auth2.clientId).not.toBe(auth1.clientId);
    expect(await registrationsFor(id)).toHaveLength(2);
    expect(
      since.some((e) => e.path === "/mcp" && e.rpc === "tools/list" && e.client_id === auth2.clientId),
    ).toBe(true);
    expect(auth2.discovered).toMatchObject({ tokenEndpointAuthMethod: "client_secret_basic" });
    // The user's token belonged to the forgotten client: they sign in again, with the new one.
    expect(second.settled.status).toBe("awaiting_consent");
    expect(await signIn(w, second.sid, user)).toBe(auth2.clientId);
    const done = await settle(w, second.sid, second.qid);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    expect(done.display[0]?.value).toBe(`you are ${user}`);
  });

  it("does not keep a client whose secret expires within a day: version 2 registers a new one", async () => {
    // The fixture gives a client named "expiring…" a secret that expires in an hour.
    const { id, auth1, auth2, since } = await secondVersion(`${AS}/mcp`, { name: unique("expiring") });
    const expiresAt = (auth1.discovered as { clientSecretExpiresAt?: number }).clientSecretExpiresAt;
    expect(expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() / 1000 + 3600);
    expect(auth2.clientId).not.toBe(auth1.clientId);
    expect(await registrationsFor(id)).toHaveLength(2);
    // Decided before the old client was used: no refused token request.
    expect(since.some((e) => e.path === "/token" && e.status === 401)).toBe(false);
    // Control: a client with a secret that never expires (0) records no expiry and is kept.
    const kept = await secondVersion(`${AS}/mcp`);
    expect(kept.auth1.discovered).not.toHaveProperty("clientSecretExpiresAt");
    expect(kept.auth2.clientId).toBe(kept.auth1.clientId);
  });

  it("refuses half-given endpoints and a developer's own `discovered` block", async () => {
    const w = await hubWorld([]);
    const half = await register(w, `${AS}/mcp`, { type: "oauth", tokenUrl: `${AS}/token` });
    expect(JSON.stringify(expectError(half, 400).details)).toContain("together");
    const forged = await register(w, `${AS}/mcp`, {
      type: "oauth",
      discovered: {
        resourceMetadataUrl: `${AS}/x`,
        authorizationServer: AS,
        registrationEndpoint: `${AS}/register`,
        redirectUri: `${AS}/cb`,
      },
    });
    expect(JSON.stringify(expectError(forged, 400).details)).toContain("body.mcp.auth.discovered");
  });

  it("refuses metadata about another resource (RFC 9728 §3.3); control: the SDK alone takes it", async () => {
    const w = await hubWorld([]);
    const res = await register(w, `${AS}/mcp-elsewhere`);
    const [problem] = expectError(res, 400).details as Array<{ code: string; message: string }>;
    expect(problem?.code).toBe("resource_mismatch");
    // Control: without Lattice's check, discovery hands back the other server's metadata.
    const meta = await discoverOAuthProtectedResourceMetadata(
      `${AS}/mcp-elsewhere`,
      { resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource/mcp-elsewhere` },
      ((u: string | URL, i?: RequestInit) => fixture().fetch(String(u), i)) as FetchLike,
    );
    expect(meta.resource).toBe(`${AS}/mcp`);
    expect(meta.authorization_servers).toEqual([AS]);
  });

  it("refuses a discovery answer that redirects; control: the SDK alone follows it", async () => {
    const w = await hubWorld([]);
    const res = await register(w, `${AS}/mcp-moved`);
    const [problem] = expectError(res, 400).details as Array<{ code: string }>;
    expect(problem?.code).toBe("redirect_refused");
    // Control: the SDK's own fetch follows the same-origin redirect to usable metadata.
    const meta = await discoverOAuthProtectedResourceMetadata(
      `${AS}/mcp-moved`,
      { resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource/mcp-moved` },
      ((u: string | URL, i?: RequestInit) => fixture().fetch(String(u), i)) as FetchLike,
    );
    expect(meta.resource).toBe(`${AS}/mcp-moved`);
  });

  it("refuses answers that do not fit a manifest; control: the SDK takes them, the manifest would not", async () => {
    const w = await hubWorld([]);
    const before = (await fixtureLog()).filter((e) => e.path === "/register").length;
    const res = await register(w, `${AS}/mcp-many-scopes`);
    const [problem] = expectError(res, 400).details as Array<{ code: string; message: string }>;
    expect(problem?.code).toBe("metadata_out_of_bounds");
    expect(problem?.message).toContain("scope");
    // Refused before a client was registered for it.
    expect((await fixtureLog()).filter((e) => e.path === "/register").length).toBe(before);
    // Control: the SDK alone hands back the scope list, and stored as the manifest's scope it would
    // not decode: every later read of the version (list, review, config) would fail.
    const meta = await discoverOAuthProtectedResourceMetadata(
      `${AS}/mcp-many-scopes`,
      { resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource/mcp-many-scopes` },
      ((u: string | URL, i?: RequestInit) => fixture().fetch(String(u), i)) as FetchLike,
    );
    const scope = meta.scopes_supported?.join(" ") ?? "";
    expect(scope.length).toBeGreaterThan(1000);
    expect(McpAuth.safeParse({ type: "oauth", scope }).success).toBe(false);
  });
});
