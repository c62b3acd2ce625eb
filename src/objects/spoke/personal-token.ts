import { purposeKey } from "../../derive.ts";
import type { StateOwner } from "../../mcp/oauth-state.ts";
import { seal, unseal } from "../seal.ts";
import type { Sql } from "../sql.ts";

/**
 * A user's personal access token for a `user_token` MCP app, kept in that user's spoke: sealed at
 * rest as the OAuth tokens are, bound to (tenant, user, app, the MCP server URL it was given for),
 * sent as a Bearer token to that URL only, and never read back by any route. A version that moves
 * the server elsewhere finds none: the user gives it again, for the server they now reach.
 */
export const PERSONAL_TOKEN_MIGRATIONS = [
  `CREATE TABLE personal_tokens (server_url TEXT PRIMARY KEY, sealed TEXT NOT NULL, updated_at TEXT NOT NULL)`,
];

export class PersonalToken {
  private readonly sql: Sql;
  private readonly keySecret: string;
  private readonly owner: StateOwner;

  constructor(sql: Sql, keySecret: string, owner: StateOwner) {
    this.sql = sql;
    this.keySecret = keySecret;
    this.owner = owner;
  }

  async set(serverUrl: string, token: string): Promise<void> {
    const sealed = await seal(await sealingKey(this.keySecret), this.bound(serverUrl), token);
    const at = new Date().toISOString();
    this.sql`INSERT INTO personal_tokens VALUES (${serverUrl}, ${sealed}, ${at})
             ON CONFLICT (server_url) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`;
  }

  /** When the token for this server was set, or null: never the token itself. */
  setAt(serverUrl: string): string | null {
    return (
      this.sql<{
        updated_at: string;
      }>`SELECT updated_at FROM personal_tokens WHERE server_url = ${serverUrl}`[0]?.updated_at ?? null
    );
  }

  /** The token for this server, for the call to it; a row that does not open (tampered, rekeyed) is dropped. */
  async token(serverUrl: string): Promise<string | undefined> {
    const row = this.sql<{
      sealed: string;
    }>`SELECT sealed FROM personal_tokens WHERE server_url = ${serverUrl}`[0];
    if (!row) return undefined;
    const token = await unseal(await sealingKey(this.keySecret), this.bound(serverUrl), row.sealed);
    if (token === null) this.forget(serverUrl);
    return token ?? undefined;
  }

  forget(serverUrl: string): boolean {
    const had = this.setAt(serverUrl) !== null;
    this.sql`DELETE FROM personal_tokens WHERE server_url = ${serverUrl}`;
    return had;
  }

  /** Which servers have a token and since when (a user's data export): never the tokens. */
  list(): Array<{ serverUrl: string; setAt: string }> {
    return this.sql<{ server_url: string; updated_at: string }>`
      SELECT server_url, updated_at FROM personal_tokens ORDER BY server_url`.map((r) => ({
      serverUrl: r.server_url,
      setAt: r.updated_at,
    }));
  }

  /** Every token of this spoke, for an app that no longer serves. */
  forgetAll(): boolean {
    const had = (this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM personal_tokens`[0]?.n ?? 0) > 0;
    this.sql`DELETE FROM personal_tokens`;
    return had;
  }

  private bound(serverUrl: string): unknown[] {
    return ["lattice-personal-token-v1", this.owner.tenantId, this.owner.userId, this.owner.appId, serverUrl];
  }
}

/** The same seal as the OAuth tokens (AES-GCM under a key derived for this purpose). */
const sealingKey = (secret: string) =>
  purposeKey(secret, "personal-token", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
