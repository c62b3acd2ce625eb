/**
 * Per-user OAuth 2.1 in tests: the authorization server fixture (a test double, test/fakes/oauth-server.ts),
 * an MCP app that signs each user in there, and the user's browser and frontend halves of a sign-in.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { api, issueKey } from "./helpers.ts";
import { type HubWorld, pendingConsents, settle } from "./hub-kit.ts";

/** The OAuth 2.1 authorization server fixture and its protected MCP server. */
export const AS = "http://127.0.0.1:8790";
export const fixture = () => (env as unknown as { OAUTH_FIXTURE: Fetcher }).OAUTH_FIXTURE;

/** The tenant's frontend page a sign-in comes back to (policy oauth.returnUrl). */
export const RETURN_PAGE = "http://frontend.test/signed-in";

/**
 * Registers and approves an MCP app whose users sign in at the fixture; its revocation endpoint is
 * the fixture's working one unless `revocationUrl` names another (or null: none).
 */
export async function registerOAuthApp(
  w: HubWorld,
  name = "files",
  revocationUrl: string | null = `${AS}/revoke`,
): Promise<string> {
  const dev = (await issueKey(w.tenant, "developer")).secret;
  const res = await api("POST", "/v1/apps", {
    key: dev,
    body: {
      name,
      description: "The user's files, over MCP, each user signing in",
      version: "1.0.0",
      mcp: {
        url: `${AS}/mcp`,
        auth: {
          type: "oauth",
          authorizationUrl: `${AS}/authorize`,
          tokenUrl: `${AS}/token`,
          ...(revocationUrl !== null && { revocationUrl }),
          clientId: "lattice-client",
          clientSecret: "lattice-client-secret",
        },
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(JSON.stringify(res.body)).not.toContain("lattice-client-secret"); // write-only
  const appId = (res.body as { id: string }).id;
  const approved = await api("POST", `/v1/admin/apps/${appId}/versions/1/approve`, {
    key: w.tenant.adminKey,
  });
  expect(approved.status).toBe(200);
  return appId;
}

/**
 * The user's browser: the authorization server signs `user` in and sends the browser to Lattice's
 * callback, which passes it on to the frontend's page; that page's query string, as the frontend sees it.
 */
export async function browserSignIn(appId: string, url: string, user: string, extra = "") {
  const res = await fixture().fetch(`${url}&login_hint=${user}${extra}`, { redirect: "manual" });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get("Location")!);
  expect(back.origin + back.pathname).toBe(`http://lattice.test/v1/oauth/callback/${appId}`);
  const onward = await api("GET", back.pathname + back.search);
  expect(onward.status, JSON.stringify(onward.body)).toBe(303);
  const page = new URL(onward.response.headers.get("Location")!);
  expect(page.origin + page.pathname).toBe(RETURN_PAGE);
  return Object.fromEntries(page.searchParams);
}

/** The frontend completes the sign-in for the user it has signed in. */
export async function complete(w: HubWorld, asUser: string, params: Record<string, string>) {
  return api("POST", `/v1/users/${asUser}/authorizations`, { key: w.frontend, body: params });
}

/** Both halves, for one user who signs in at their own sign-in URL. */
export async function signIn(w: HubWorld, appId: string, url: string, user: string, extra = "") {
  return complete(w, user, await browserSignIn(appId, url, user, extra));
}

/** What the fixture was asked, oldest first (of one subject, when given). */
export async function fixtureLog(subject?: string): Promise<Array<Record<string, unknown>>> {
  const res = await fixture().fetch(`${AS}/_fixture/log`);
  const log = (await res.json()) as Array<Record<string, unknown>>;
  return subject === undefined ? log : log.filter((e) => e.subject === subject);
}

/** The query paused on the user's sign-in: its authorize consent. */
export async function authorizeConsent(w: HubWorld, sid: string, qid: string) {
  const waiting = await settle(w, sid, qid);
  expect(waiting.status, JSON.stringify(waiting.error)).toBe("awaiting_consent");
  const [consent] = await pendingConsents(w, sid);
  expect(consent?.kind).toBe("authorize");
  return consent as unknown as { id: string; authorization: { url: string } };
}
