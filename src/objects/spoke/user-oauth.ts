import {
  exchangeAuthorization,
  OAuthError,
  type OAuthTokens,
  refreshAuthorization,
  startAuthorization,
} from "@modelcontextprotocol/client";
import * as z from "zod";
import { isResolvedOAuth, type ResolvedOAuth } from "../../apps/manifest.ts";
import type { ServingApp } from "../../contracts.ts";
import { decode } from "../../decode.ts";
import { purposeKey } from "../../derive.ts";
import { metadataOf, oauthCallbackUrl, secretBinding, tokenFetch } from "../../mcp/auth.ts";
import { encodeState, type StateOwner } from "../../mcp/oauth-state.ts";
import { randomToken } from "../crypto.ts";
import { seal, unseal } from "../seal.ts";
import type { Sql } from "../sql.ts";
import { appCredential, servingApp } from "../tenant-replica/index.ts";

/**
 * One user's OAuth 2.1 authorization of one MCP app (code + PKCE through the client SDK's helpers),
 * kept in that user's spoke: tokens sealed at rest, bound to (tenant, user, app, token URL);
 * refreshed shortly before they expire; dropped (and revoked at the server, where it names a
 * revocation URL) when the user revokes the app. Pending authorizations live ten minutes.
 */

export const USER_OAUTH_MIGRATIONS = [
  `CREATE TABLE oauth_tokens (
     token_url TEXT PRIMARY KEY, sealed TEXT NOT NULL, expires_at INTEGER, updated_at TEXT NOT NULL)`,
  `CREATE TABLE oauth_pending (
     nonce TEXT PRIMARY KEY, sealed_verifier TEXT NOT NULL, session_id TEXT NOT NULL, query_id TEXT NOT NULL,
     subject TEXT NOT NULL, created_at INTEGER NOT NULL)`,
  // Keyed by the whole binding now (token URL, client, resource), sealed as v2: v1 tokens cannot
  // open any more, so they go (their users sign in again) rather than being carried over.
  `DROP TABLE oauth_tokens`,
  `CREATE TABLE oauth_tokens (
     binding TEXT PRIMARY KEY, sealed TEXT NOT NULL, expires_at INTEGER, updated_at TEXT NOT NULL)`,
];

type OAuthConfig = ResolvedOAuth;
/** What became of a user's tokens at their server on erasure. */
export type Revocation = "revoked" | "failed" | "no_endpoint" | "none";
const Binding = z.tuple([z.string(), z.string(), z.string()]);
export interface OAuthTarget {
  auth: OAuthConfig;
  /** The MCP server: the `resource` the tokens are for (RFC 8707). */
  resource: string;
  clientSecret: string | null;
  redirectUrl: string;
  timeoutMs: number;
}
export interface PendingAsk {
  sessionId: string;
  queryId: string;
  subject: string;
}

/** What is kept of a token answer: the tokens and their lifetime. */
const StoredTokens = z.object({
  access_token: z.string(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
});
type StoredTokens = z.infer<typeof StoredTokens>;

/** A sign-in may take a while (the consent itself may wait up to a day): an hour, then it is gone. */
const PENDING_MS = 60 * 60 * 1000;
/** Refreshes in flight, per (tenant, user, app, token binding), in this isolate. */
const refreshing = new Map<string, Promise<string | undefined>>();
const EARLY_MS = 30_000;
const TOKEN_TIMEOUT_MS = 10_000;

export class UserOAuth {
  private readonly sql: Sql;
  private readonly keySecret: string;
  private readonly owner: StateOwner;

  constructor(sql: Sql, keySecret: string, owner: StateOwner) {
    this.sql = sql;
    this.keySecret = keySecret;
    this.owner = owner;
  }

  /** Authorized (a token, or a refresh token to get one), else the URL where the user signs in. */
  async status(
    t: OAuthTarget,
    ask: PendingAsk,
  ): Promise<{ authorized: true } | { authorized: false; url: string }> {
    if (await this.usable(t)) return { authorized: true };
    this.sql`DELETE FROM oauth_pending WHERE created_at < ${Date.now() - PENDING_MS}`;
    const nonce = randomToken(18);
    const { authorizationUrl, codeVerifier } = await startAuthorization(new URL(t.auth.tokenUrl).origin, {
      metadata: metadataOf(t.auth),
      clientInformation: client(t),
      redirectUrl: t.redirectUrl,
      ...(t.auth.scope !== undefined && { scope: t.auth.scope }),
      state: await encodeState(this.keySecret, this.owner, nonce),
      resource: t.resource,
    });
    this
      .sql`INSERT INTO oauth_pending VALUES (${nonce}, ${await this.seal(t, codeVerifier)}, ${ask.sessionId},
             ${ask.queryId}, ${ask.subject}, ${Date.now()})`;
    return { authorized: false, url: authorizationUrl.href };
  }

  /**
   * The callback's code for tokens, once per pending authorization (null code: the user refused);
   * what the authorization was asked for, or null for a nonce this spoke did not issue.
   */
  async complete(
    t: OAuthTarget,
    nonce: string,
    code: string | null,
    iss: string | undefined,
  ): Promise<(PendingAsk & { authorized: boolean }) | null> {
    type Pending = {
      sealed_verifier: string;
      session_id: string;
      query_id: string;
      subject: string;
      created_at: number;
    };
    const pending = this.sql<Pending>`SELECT * FROM oauth_pending WHERE nonce = ${nonce}`[0];
    this.sql`DELETE FROM oauth_pending WHERE nonce = ${nonce}`; // one use, whatever happens next
    if (!pending || pending.created_at < Date.now() - PENDING_MS) return null;
    const asked = { sessionId: pending.session_id, queryId: pending.query_id, subject: pending.subject };
    const verifier = await this.unseal(t, pending.sealed_verifier);
    if (code === null || !verifier) return { ...asked, authorized: false };
    try {
      const tokens = await exchangeAuthorization(new URL(t.auth.tokenUrl).origin, {
        metadata: metadataOf(t.auth),
        clientInformation: client(t),
        authorizationCode: code,
        ...(iss !== undefined && { iss }),
        codeVerifier: verifier,
        redirectUri: t.redirectUrl,
        resource: t.resource,
        fetchFn: tokenFetch([t.auth.tokenUrl], t.timeoutMs),
      });
      await this.store(t, tokens);
    } catch {
      // A refused or unanswered exchange (or a wrong `iss`): the consent is settled as not authorized.
      return { ...asked, authorized: false };
    }
    return { ...asked, authorized: true };
  }

  /** A live access token, refreshed when it is about to expire; undefined when the user must sign in again. */
  async accessToken(t: OAuthTarget): Promise<string | undefined> {
    const row = this.row(rowKey(t));
    if (!row) return undefined;
    const tokens = await this.open(t, row.sealed);
    if (!tokens) return this.forget(t); // sealed under another secret or tampered: sign in again
    if (row.expires_at === null || row.expires_at - EARLY_MS > Date.now()) return tokens.access_token;
    if (!tokens.refresh_token) return this.forget(t);
    // One refresh at a time per user and app: a rotating server refuses the second use of a refresh token.
    const key = JSON.stringify([this.owner.tenantId, this.owner.userId, this.owner.appId, rowKey(t)]);
    let running = refreshing.get(key);
    if (!running) {
      running = this.refresh(t, tokens.refresh_token).finally(() => refreshing.delete(key));
      refreshing.set(key, running);
    }
    return running;
  }

  private async refresh(t: OAuthTarget, refreshToken: string): Promise<string | undefined> {
    try {
      const fresh = await refreshAuthorization(new URL(t.auth.tokenUrl).origin, {
        metadata: metadataOf(t.auth),
        clientInformation: client(t),
        refreshToken,
        resource: t.resource,
        fetchFn: tokenFetch([t.auth.tokenUrl], t.timeoutMs),
      });
      await this.store(t, { ...fresh, refresh_token: fresh.refresh_token ?? refreshToken });
      return fresh.access_token;
    } catch (error) {
      // Refused (invalid_grant): the user signs in again. A timeout or a 5xx keeps the tokens for next time.
      if (error instanceof OAuthError && error.code === "invalid_grant") return this.forget(t);
      return undefined;
    }
  }

  /** Drops the user's tokens; revokes the refresh (or access) token at the server when it names where. */
  async revoke(t: OAuthTarget): Promise<boolean> {
    const row = this.row(rowKey(t));
    if (!row) return false;
    const tokens = await this.open(t, row.sealed);
    this.forget(t);
    // Best effort: the tokens are gone from Lattice whether or not the server answers.
    if (tokens) await this.revokeAt(t, tokens);
    return true;
  }

  /**
   * Every token dropped (a user's erasure, #34); the current binding's revoked at the server where
   * the app names a revocation URL. Tokens of an earlier binding (another server) are dropped only.
   */
  async erase(t: OAuthTarget | null): Promise<{ tokens: number; revocation: Revocation }> {
    const tokens = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM oauth_tokens`[0]?.n ?? 0;
    let revocation: Revocation = tokens ? "no_endpoint" : "none";
    const row = t && this.row(rowKey(t));
    if (t && row) {
      const opened = await this.open(t, row.sealed);
      const answered = opened && (await this.revokeAt(t, opened));
      if (answered !== null) revocation = answered ? "revoked" : "failed";
    }
    this.forgetAll();
    return { tokens, revocation };
  }

  /** Whether the server took the revocation (RFC 7009: 200); null when it names no revocation URL. */
  private async revokeAt(t: OAuthTarget, tokens: StoredTokens): Promise<boolean | null> {
    if (!t.auth.revocationUrl) return null;
    const body = new URLSearchParams({
      token: tokens.refresh_token ?? tokens.access_token,
      client_id: t.auth.clientId,
      ...(t.clientSecret && { client_secret: t.clientSecret }),
    });
    // Bounded in time (t.timeoutMs) and size (tokenFetch): a slow server never holds an erasure.
    const response = await tokenFetch([t.auth.revocationUrl], t.timeoutMs)(t.auth.revocationUrl, {
      method: "POST",
      body,
    }).catch(() => null);
    return response?.ok ?? false;
  }

  /** The connections held, as an export shows them: where and when, never a token. */
  connections(): Array<{ tokenUrl: string; clientId: string; resource: string; connectedAt: string }> {
    const rows = this.sql<{ binding: string; updated_at: string }>`
      SELECT binding, updated_at FROM oauth_tokens ORDER BY updated_at`;
    return rows.map((row) => {
      const [tokenUrl, clientId, resource] = decode(Binding, row.binding, "an OAuth token's binding");
      return { tokenUrl, clientId, resource, connectedAt: row.updated_at };
    });
  }

  /** Tokens that open and are live or refreshable (the call refreshes); others are dropped. */
  private async usable(t: OAuthTarget): Promise<boolean> {
    const row = this.row(rowKey(t));
    if (!row) return false;
    const tokens = await this.open(t, row.sealed);
    if (tokens && (row.expires_at === null || row.expires_at > Date.now() || tokens.refresh_token))
      return true;
    this.forget(t);
    return false;
  }

  /** Every token this spoke holds, dropped (the app no longer serves: nothing to revoke at). */
  forgetAll(): boolean {
    const had = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM oauth_tokens`[0]?.n ?? 0;
    this.sql`DELETE FROM oauth_tokens`;
    this.sql`DELETE FROM oauth_pending`;
    return had > 0;
  }

  forget(t: OAuthTarget): undefined {
    this.sql`DELETE FROM oauth_tokens WHERE binding = ${rowKey(t)}`;
    return undefined;
  }

  private row(binding: string) {
    return this.sql<{ sealed: string; expires_at: number | null }>`
      SELECT sealed, expires_at FROM oauth_tokens WHERE binding = ${binding}`[0];
  }

  private async store(t: OAuthTarget, tokens: OAuthTokens): Promise<void> {
    const expires = tokens.expires_in === undefined ? null : Date.now() + tokens.expires_in * 1000;
    const kept: StoredTokens = {
      access_token: tokens.access_token,
      ...(tokens.refresh_token !== undefined && { refresh_token: tokens.refresh_token }),
    };
    const sealed = await this.seal(t, JSON.stringify(kept));
    this
      .sql`INSERT INTO oauth_tokens VALUES (${rowKey(t)}, ${sealed}, ${expires}, ${new Date().toISOString()})
             ON CONFLICT (binding) DO UPDATE SET sealed = excluded.sealed, expires_at = excluded.expires_at,
               updated_at = excluded.updated_at`;
  }

  private async open(t: OAuthTarget, sealed: string): Promise<StoredTokens | null> {
    const text = await this.unseal(t, sealed);
    return text === null ? null : decode(StoredTokens, text, "a user's OAuth tokens");
  }

  private async seal(t: OAuthTarget, plain: string): Promise<string> {
    return seal(await sealingKey(this.keySecret), this.bound(t), plain);
  }

  private async unseal(t: OAuthTarget, sealed: string): Promise<string | null> {
    return unseal(await sealingKey(this.keySecret), this.bound(t), sealed);
  }

  private bound(t: OAuthTarget): unknown[] {
    return ["lattice-user-oauth-v2", this.owner.tenantId, this.owner.userId, this.owner.appId, rowKey(t)];
  }
}

/** The per-user OAuth settings of the app a spoke serves, looked up; null when it uses none (or no longer serves). */
export async function oauthTargetOf(env: Env, tenantId: string, appId: string): Promise<OAuthTarget | null> {
  const app = await servingApp(env, tenantId, appId);
  return app ? oauthTargetFor(env, tenantId, app) : null;
}

/** The per-user OAuth settings of a serving app already in hand; null when it uses none. */
export async function oauthTargetFor(
  env: Env,
  tenantId: string,
  app: ServingApp,
): Promise<OAuthTarget | null> {
  const mcp = app.manifest.mcp;
  // Every stored version has its endpoints (given, or discovered at registration).
  if (!mcp || !isResolvedOAuth(mcp.auth)) return null;
  return {
    auth: mcp.auth,
    resource: mcp.url,
    clientSecret: await appCredential(env, tenantId, app.appId, secretBinding(mcp.auth, mcp.url) ?? ""),
    redirectUrl: oauthCallbackUrl(env, app.appId),
    timeoutMs: TOKEN_TIMEOUT_MS,
  };
}

/**
 * Which tokens a row holds: those of this token URL and client, for this MCP server (`resource`). A
 * version that points elsewhere finds none: its users sign in again, for the server they now reach.
 */
const rowKey = (t: OAuthTarget) => JSON.stringify([t.auth.tokenUrl, t.auth.clientId, t.resource]);

const sealingKey = (secret: string) =>
  purposeKey(secret, "user-oauth", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);

function client(t: OAuthTarget) {
  return { client_id: t.auth.clientId, ...(t.clientSecret && { client_secret: t.clientSecret }) };
}
