/**
 * Erasure revokes a user's per-user OAuth tokens at their server (#34): RFC 7009, a form body naming
 * the user's own token, reported `revoked`; a server whose revocation endpoint fails is reported
 * `failed` and listed, and the token is dropped here all the same. Control: before the erasure no
 * revocation reached the server and the tokens are held; another user's connection stays live after.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { spokeObjectName } from "../../src/objects/names.ts";
import { api } from "./helpers.ts";
import { display, type HubWorld, hubWorld, openSession, ref, tool } from "./hub-kit.ts";
import { AS, authorizeConsent, fixtureLog, RETURN_PAGE, registerOAuthApp, signIn } from "./oauth-kit.ts";
import { runQuery } from "./user-data-kit.ts";

let users = 0;
const uniqueUser = () => `er${Date.now().toString(36)}${users++}`;

const whoami = (app: string) => ({
  steps: [tool("me", `${app}.whoami`, {}), display(ref("me", "text"))],
});

/** The user signs in to `app` (named `name`) through a query that needs it; the query then completes. */
async function connect(w: HubWorld, user: string, name: string, appId: string): Promise<void> {
  const sid = await openSession(w, { userId: user });
  const q = await runQuery(w, sid, `who am I to ${name}?`, whoami(name));
  expect(q.status).toBe("awaiting_consent");
  const consent = await authorizeConsent(w, sid, q.id);
  expect((await signIn(w, appId, consent.authorization.url, user)).status).toBe(200);
}

/** The OAuth tokens a user's spoke of `appId` holds. */
async function heldTokens(w: HubWorld, user: string, appId: string): Promise<number> {
  const { runInDurableObject } = await import("cloudflare:test");
  const stub = env.SPOKE.getByName(spokeObjectName(w.tenant.tenantId, user, appId));
  return runInDurableObject(stub, async (_, state) => {
    const has = state.storage.sql
      .exec("SELECT name FROM sqlite_master WHERE name = 'oauth_tokens'")
      .toArray().length;
    if (!has) return 0;
    return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM oauth_tokens").one().n;
  });
}

describe("erasure and a user's OAuth connections", () => {
  it("revokes the user's token at the server (RFC 7009), reports a failing server, drops both", async () => {
    const w = await hubWorld([], { oauth: { returnUrl: RETURN_PAGE } });
    const files = await registerOAuthApp(w, "files");
    const locker = await registerOAuthApp(w, "locker", `${AS}/revoke-broken`);
    const [user, other] = [uniqueUser(), uniqueUser()];
    await connect(w, user, "files", files);
    await connect(w, user, "locker", locker);
    await connect(w, other, "files", files);

    // Control: the tokens are held, and nothing was revoked for the user yet.
    expect(await heldTokens(w, user, files)).toBe(1);
    expect(await heldTokens(w, user, locker)).toBe(1);
    const revocationsOf = async (subject: string) =>
      (await fixtureLog(subject)).filter((e) => e.path === "/revoke");
    expect(await revocationsOf(user)).toEqual([]);
    const brokenBefore = (await fixtureLog()).filter((e) => e.path === "/revoke-broken").length;

    const erased = await api("DELETE", `/v1/users/${user}`, { key: w.tenant.adminKey });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const report = erased.body as {
      cleared: { oauthTokens: number; spokes: number };
      oauth: Array<{ appId: string; revocation: string }>;
      revocationFailed: string[];
    };
    expect(report.cleared.oauthTokens).toBe(2);
    expect(report.oauth).toEqual(
      expect.arrayContaining([
        { appId: files, revocation: "revoked" },
        { appId: locker, revocation: "failed" },
      ]),
    );
    expect(report.oauth).toHaveLength(2);
    expect(report.revocationFailed).toEqual([locker]);

    // The server was asked once, as RFC 7009 says (a form body, the client authenticated), to
    // revoke this user's own refresh token (which takes its access tokens with it), and took it.
    const revoked = await revocationsOf(user);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({
      method: "POST",
      status: 200,
      subject: user,
      token_kind: "refresh",
      client_id: "lattice-client",
      content_type: expect.stringMatching(/^application\/x-www-form-urlencoded/),
    });
    expect(revoked[0]!.auth).not.toBe("anonymous");
    // The failing endpoint was tried (and answered 500); the token is dropped here all the same.
    const broken = (await fixtureLog()).filter((e) => e.path === "/revoke-broken");
    expect(broken.length).toBe(brokenBefore + 1);
    expect(broken.at(-1)?.status).toBe(500);
    expect(await heldTokens(w, user, files)).toBe(0);
    expect(await heldTokens(w, user, locker)).toBe(0);

    // The erased user must sign in again; another user's connection is untouched and still serves.
    const again = await openSession(w, { userId: user });
    expect((await runQuery(w, again, "who am I?", whoami("files"))).status).toBe("awaiting_consent");
    expect(await revocationsOf(other)).toEqual([]);
    expect(await heldTokens(w, other, files)).toBe(1);
    const theirs = await openSession(w, { userId: other });
    expect((await runQuery(w, theirs, "who am I?", whoami("files"))).status).toBe("completed");

    // A second erasure finds no token to revoke and asks no server.
    const twice = await api("DELETE", `/v1/users/${user}`, { key: w.tenant.adminKey });
    expect((twice.body as typeof report).oauth).toEqual([]);
    expect(await revocationsOf(user)).toHaveLength(1);
  });
});
