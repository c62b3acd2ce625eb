/**
 * The OAuth fixture's state (TEST DOUBLE): one Durable Object holds codes, tokens, settings and the
 * request log in SQLite. Every grant decision runs inside one synchronous method, so a code or refresh
 * token cannot be redeemed twice by racing requests.
 */
import { DurableObject } from "cloudflare:workers";
import {
  type Client,
  CODE_TTL_SECONDS,
  DEFAULT_EXPIRES_IN,
  failure,
  type OAuthFailure,
  REFRESH_TTL_SECONDS,
  randomToken,
} from "./protocol.ts";

/** What /authorize bound a code to. */
export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  subject: string;
}

/** RFC 6749 §5.1 success body. */
export interface TokenBody {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export interface Issued {
  body: TokenBody;
  subject: string;
}

export type Refusal = "unknown" | "revoked" | "expired";
export interface AccessGrant {
  subject: string;
  clientId: string;
  scope: string;
}

/** One request the fixture served; tests read these from GET /_fixture/log. */
export interface LogEntry {
  method: string;
  path: string;
  status?: number;
  grant_type?: string;
  client_id?: string | null;
  auth?: string;
  subject?: string;
  error?: string;
  /** /mcp: the JSON-RPC method, the tool called, why a token was refused. */
  rpc?: string;
  tool?: string;
  refused?: Refusal | "missing";
  [key: string]: unknown;
}

interface CodeRow extends Record<string, SqlStorageValue> {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  subject: string;
  grant_id: string;
  expires_at: number;
  used: number;
}

interface TokenRow extends Record<string, SqlStorageValue> {
  kind: string;
  grant_id: string;
  subject: string;
  client_id: string;
  scope: string;
  expires_at: number;
  revoked: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS codes (code TEXT PRIMARY KEY, client_id TEXT, redirect_uri TEXT,
  code_challenge TEXT, scope TEXT, subject TEXT, grant_id TEXT, expires_at INTEGER, used INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, kind TEXT, grant_id TEXT, subject TEXT,
  client_id TEXT, scope TEXT, expires_at INTEGER, revoked INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS settings (subject TEXT PRIMARY KEY, expires_in INTEGER);
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT);
CREATE TABLE IF NOT EXISTS clients (id TEXT PRIMARY KEY, client TEXT);`;

const ANY_SUBJECT = "*";

export class OAuthFixtureState extends DurableObject<unknown> {
  private sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
  }

  issueCode(grant: CodeGrant): string {
    const code = randomToken("fxcode");
    this.sql.exec(
      "INSERT INTO codes (code, client_id, redirect_uri, code_challenge, scope, subject, grant_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      code,
      grant.clientId,
      grant.redirectUri,
      grant.codeChallenge,
      grant.scope,
      grant.subject,
      randomToken("fxgrant"),
      Date.now() + CODE_TTL_SECONDS * 1000,
    );
    return code;
  }

  /** `challenge` is S256 of the verifier the client sent (hashing is async, so the caller does it). */
  redeemCode(code: string, clientId: string, redirectUri: string, challenge: string): Issued | OAuthFailure {
    const row = this.sql.exec<CodeRow>("SELECT * FROM codes WHERE code = ?", code).toArray()[0];
    if (!row) return failure(400, "invalid_grant", "unknown authorization code");
    if (row.used) {
      // OAuth 2.1 §4.1.3: a replayed code should cost the tokens it already bought.
      this.sql.exec("UPDATE tokens SET revoked = 1 WHERE grant_id = ?", row.grant_id);
      return failure(400, "invalid_grant", "authorization code already used; its tokens are revoked");
    }
    // One attempt per code, whatever its outcome.
    this.sql.exec("UPDATE codes SET used = 1 WHERE code = ?", code);
    if (row.expires_at <= Date.now()) return failure(400, "invalid_grant", "authorization code expired");
    if (row.client_id !== clientId) return failure(400, "invalid_grant", "code was issued to another client");
    if (row.redirect_uri !== redirectUri)
      return failure(400, "invalid_grant", "redirect_uri differs from the one sent to /authorize");
    if (row.code_challenge !== challenge)
      return failure(400, "invalid_grant", "PKCE check failed: S256(code_verifier) != code_challenge");
    return this.issue(row.grant_id, row.subject, clientId, row.scope, true);
  }

  /** Rotation: the presented refresh token dies, a new access + refresh pair is born in the same grant. */
  refresh(token: string, clientId: string, scope: string | null): Issued | OAuthFailure {
    const row = this.tokenRow(token);
    if (row?.kind !== "refresh") return failure(400, "invalid_grant", "unknown refresh token");
    if (row.revoked) return failure(400, "invalid_grant", "refresh token revoked or already used");
    if (row.expires_at <= Date.now()) return failure(400, "invalid_grant", "refresh token expired");
    if (row.client_id !== clientId)
      return failure(400, "invalid_grant", "refresh token belongs to another client");
    const granted = row.scope.split(" ");
    if (scope !== null && !scope.split(" ").every((s) => granted.includes(s)))
      return failure(400, "invalid_scope", "a refresh cannot widen the granted scope");
    this.sql.exec("UPDATE tokens SET revoked = 1 WHERE token = ?", token);
    return this.issue(row.grant_id, row.subject, clientId, scope ?? row.scope, true);
  }

  /** The client acts for itself: it is the subject, and gets no refresh token (RFC 6749 §4.4.3). */
  clientCredentials(clientId: string, scope: string): Issued {
    return this.issue(randomToken("fxgrant"), clientId, clientId, scope, false);
  }

  /** RFC 7009: a refresh token takes its grant's access tokens with it; unknown tokens are no error. */
  revoke(token: string, clientId: string | null): { subject: string; kind: string } | null {
    const row = this.tokenRow(token);
    if (!row || (clientId !== null && row.client_id !== clientId)) return null;
    if (row.kind === "refresh")
      this.sql.exec("UPDATE tokens SET revoked = 1 WHERE grant_id = ?", row.grant_id);
    else this.sql.exec("UPDATE tokens SET revoked = 1 WHERE token = ?", token);
    // Whose token it was, for the log: a test checks the revocation named the right user's token.
    return { subject: row.subject, kind: row.kind };
  }

  verifyAccess(token: string): AccessGrant | { refused: Refusal } {
    const row = this.tokenRow(token);
    if (row?.kind !== "access") return { refused: "unknown" };
    if (row.revoked) return { refused: "revoked" };
    if (row.expires_at <= Date.now()) return { refused: "expired" };
    return { subject: row.subject, clientId: row.client_id, scope: row.scope };
  }

  /** Access token lifetime for tokens issued from now on: for one subject, or for all. */
  setExpiresIn(seconds: number, subject: string | null): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO settings (subject, expires_in) VALUES (?, ?)",
      subject ?? ANY_SUBJECT,
      seconds,
    );
  }

  revokeAll(): number {
    return this.sql.exec("UPDATE tokens SET revoked = 1 WHERE revoked = 0").rowsWritten;
  }

  /** RFC 7591: a new client, kept for the life of the fixture. */
  registerClient(client: Omit<Client, "id">): Client {
    const registered = { ...client, id: randomToken("fxclient") };
    this.sql.exec(
      "INSERT INTO clients (id, client) VALUES (?, ?)",
      registered.id,
      JSON.stringify(registered),
    );
    return registered;
  }

  /** An authorization server that deleted a registered client: it no longer authenticates. */
  forgetClient(id: string): boolean {
    return this.sql.exec("DELETE FROM clients WHERE id = ?", id).rowsWritten > 0;
  }

  /** Every dynamically registered client, by id. */
  clients(): Record<string, Client> {
    return Object.fromEntries(
      this.sql
        .exec<{ id: string; client: string }>("SELECT id, client FROM clients")
        .toArray()
        .map((r) => [r.id, JSON.parse(r.client) as Client]),
    );
  }

  append(entry: LogEntry): void {
    this.sql.exec("INSERT INTO log (entry) VALUES (?)", JSON.stringify(entry));
  }

  entries(): LogEntry[] {
    return this.sql
      .exec<{ entry: string }>("SELECT entry FROM log ORDER BY seq")
      .toArray()
      .map((r) => JSON.parse(r.entry) as LogEntry);
  }

  private tokenRow(token: string): TokenRow | undefined {
    return this.sql.exec<TokenRow>("SELECT * FROM tokens WHERE token = ?", token).toArray()[0];
  }

  /** A subject's own setting wins over the one for all subjects. */
  private expiresIn(subject: string): number {
    const setting = (s: string) =>
      this.sql
        .exec<{ expires_in: number }>("SELECT expires_in FROM settings WHERE subject = ?", s)
        .toArray()[0]?.expires_in;
    return setting(subject) ?? setting(ANY_SUBJECT) ?? DEFAULT_EXPIRES_IN;
  }

  private issue(
    grantId: string,
    subject: string,
    clientId: string,
    scope: string,
    withRefresh: boolean,
  ): Issued {
    const expiresIn = this.expiresIn(subject);
    const now = Date.now();
    const insert = (token: string, kind: string, expiresAt: number) =>
      this.sql.exec(
        "INSERT INTO tokens (token, kind, grant_id, subject, client_id, scope, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        token,
        kind,
        grantId,
        subject,
        clientId,
        scope,
        expiresAt,
      );
    const body: TokenBody = {
      access_token: randomToken("fxat"),
      token_type: "Bearer",
      expires_in: expiresIn,
      scope,
    };
    insert(body.access_token, "access", now + expiresIn * 1000);
    if (withRefresh) {
      body.refresh_token = randomToken("fxrt");
      insert(body.refresh_token, "refresh", now + REFRESH_TTL_SECONDS * 1000);
    }
    return { body, subject };
  }
}
