import { listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers.ts";
import { ask, display, type HubWorld, hubWorld, openSession, ref, script, settle, tool } from "./hub-kit.ts";
import {
  AS,
  authorizeConsent,
  browserSignIn,
  complete,
  fixture,
  fixtureLog,
  RETURN_PAGE,
  registerOAuthApp,
  signIn as signInTo,
} from "./oauth-kit.ts";

let users = 0;
const uniqueUser = () => `u${Date.now().toString(36)}${users++}`;

async function oauthWorld(): Promise<HubWorld & { appId: string }> {
  const w = await hubWorld([], { oauth: { returnUrl: RETURN_PAGE } });
  const appId = await registerOAuthApp(w);
  await script(w.models.planner, [
    { respond: { steps: [tool("me", "files.whoami", {}), display(ref("me", "text"))] } },
  ]);
  return { ...w, appId };
}

/** Both halves of a sign-in to the world's app. */
const signIn = (w: HubWorld & { appId: string }, url: string, user: string, extra = "") =>
  signInTo(w, w.appId, url, user, extra);

describe("per-user OAuth 2.1 for MCP apps (code + PKCE)", () => {
  it("asks the user to sign in once, then calls the app with their own token", async () => {
    const w = await oauthWorld();
    const user = uniqueUser();
    const sid = await openSession(w, { userId: user });
    const qid = await ask(w, sid, "who am I to the files app?");
    const consent = await authorizeConsent(w, sid, qid);
    const url = new URL(consent.authorization.url);
    expect(url.origin + url.pathname).toBe(`${AS}/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(`${AS}/mcp`);

    const back = await signIn(w, consent.authorization.url, user);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual({ authorized: true });
    const done = await settle(w, sid, qid);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    expect(done.display[0]?.value).toBe(`you are ${user}`);

    // Authorized once: a later query (another session too) runs without asking.
    const sid2 = await openSession(w, { userId: user });
    const again = await settle(w, sid2, await ask(w, sid2, "who am I again?"));
    expect(again.status, JSON.stringify(again.error)).toBe("completed");

    // Another user of the same app must sign in for themselves.
    const other = await openSession(w, { userId: uniqueUser() });
    expect((await settle(w, other, await ask(w, other, "who am I?"))).status).toBe("awaiting_consent");
  });

  it("refreshes an expired token, and a revoked authorization asks again (revoked at the server too)", async () => {
    const w = await oauthWorld();
    const user = uniqueUser();
    // Tokens issued to this user live one second: within the spoke's margin, so each call refreshes first.
    await fixture().fetch(`${AS}/_fixture/expires_in`, {
      method: "POST",
      body: JSON.stringify({ seconds: 1, subject: user }),
    });
    const sid = await openSession(w, { userId: user });
    const qid = await ask(w, sid, "who am I?");
    const consent = await authorizeConsent(w, sid, qid);
    expect((await signIn(w, consent.authorization.url, user)).status).toBe(200);
    expect((await settle(w, sid, qid)).status).toBe("completed");
    const grants = (await fixtureLog(user)).map((e) => e.grant_type).filter(Boolean);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);

    const revocations = async () =>
      (await fixtureLog()).filter((e) => e.path === "/revoke" && e.status === 200);
    const before = (await revocations()).length;
    const revoked = await api("DELETE", `/v1/users/${user}/authorizations/${w.appId}`, { key: w.frontend });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect((await revocations()).length).toBe(before + 1);
    const next = await openSession(w, { userId: user });
    expect((await settle(w, next, await ask(w, next, "who am I?"))).status).toBe("awaiting_consent");
    expectError(await api("DELETE", `/v1/users/${user}/authorizations/${w.appId}`, { key: w.frontend }), 404);
    // An app id the tenant never had: 404 without creating a spoke object for it.
    const spokes = (await listDurableObjectIds(env.SPOKE)).length;
    expectError(
      await api("DELETE", `/v1/users/${user}/authorizations/app_0123456789abcdef`, { key: w.frontend }),
      404,
    );
    expect((await listDurableObjectIds(env.SPOKE)).length).toBe(spokes);
  });

  it("refuses forged and replayed callbacks; a user who declines fails the step cleanly", async () => {
    const w = await oauthWorld();
    const user = uniqueUser();
    const sid = await openSession(w, { userId: user });
    const qid = await ask(w, sid, "who am I?");
    const consent = await authorizeConsent(w, sid, qid);
    const state = new URL(consent.authorization.url).searchParams.get("state")!;
    const forged = `${state.slice(0, -4)}AAAA`;
    const callback = `/v1/oauth/callback/${w.appId}`;
    expectError(await api("GET", `${callback}?code=x&state=${encodeURIComponent(forged)}`), 400);
    // An answer on another app's path is refused (no mix-up between apps).
    expectError(
      await api("GET", `/v1/oauth/callback/app_other?code=x&state=${encodeURIComponent(state)}`),
      400,
    );

    const returned = await browserSignIn(w.appId, consent.authorization.url, user, "&deny=1");
    expect(returned.error).toBe("access_denied");
    const declined = await complete(w, user, returned);
    expect(declined.body).toEqual({ authorized: false });
    const q = await settle(w, sid, qid);
    expect(q.status).toBe("failed");
    expect(q.error?.code).toBe("consent_denied");
    // The state was one-time: the same answer again is refused.
    expectError(await complete(w, user, returned), 404);
  });

  it("binds a sign-in to its user: a sign-in URL someone else follows does not land in the sender's spoke", async () => {
    const w = await oauthWorld();
    const [mallory, victim] = [uniqueUser(), uniqueUser()];
    const sid = await openSession(w, { userId: mallory });
    const qid = await ask(w, sid, "who am I?");
    const consent = await authorizeConsent(w, sid, qid);
    // Mallory sends her sign-in URL to the victim, who signs in; the frontend completes it for its
    // signed-in user, the victim: refused, as if no such sign-in existed.
    const returned = await browserSignIn(w.appId, consent.authorization.url, victim);
    expectError(await complete(w, victim, returned), 404);
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    // A user token reaches only its own user's completions too.
    const token = await api("POST", `/v1/users/${victim}/tokens`, { key: w.frontend, body: {} });
    const victimToken = (token.body as { token: string }).token;
    const viaToken = await api("POST", `/v1/users/${mallory}/authorizations`, {
      key: victimToken,
      body: returned,
    });
    expectError(viaToken, 404);
  });
});
