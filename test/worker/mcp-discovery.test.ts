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
