import { purposeKey } from "../../derive.ts";
import { seal, unseal } from "../seal.ts";
import type { Sql } from "../sql.ts";

/**
 * The secret Lattice presents to an app's MCP server (a bearer token or an OAuth client secret),
 * sealed at rest and bound to the tenant, the app and the URL it was given for (one per URL): a
 * version pointing elsewhere finds no secret there and must be sent one. Never returned by any route.
 */

export const APP_CREDENTIAL_MIGRATIONS = [
  `CREATE TABLE app_credentials (
     app_id TEXT NOT NULL, bound_to TEXT NOT NULL, sealed TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (app_id, bound_to))`,
];

const key = (secret: string) =>
  purposeKey(secret, "app-credentials", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
const aad = (tenantId: string, appId: string, boundTo: string) => [
  "lattice-app-credential-v1",
  tenantId,
  appId,
  boundTo,
];

export async function storeCredential(
  sql: Sql,
  keySecret: string,
  where: { tenantId: string; appId: string; boundTo: string },
  credential: string,
): Promise<void> {
  const sealed = await seal(
    await key(keySecret),
    aad(where.tenantId, where.appId, where.boundTo),
    credential,
  );
  sql`INSERT INTO app_credentials (app_id, bound_to, sealed, updated_at)
      VALUES (${where.appId}, ${where.boundTo}, ${sealed}, ${new Date().toISOString()})
      ON CONFLICT (app_id, bound_to) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`;
}

/** The opened secret, or null when none is stored for exactly this URL (or the row was tampered with). */
export async function openCredential(
  sql: Sql,
  keySecret: string,
  where: { tenantId: string; appId: string; boundTo: string },
): Promise<string | null> {
  const row = sql<{ sealed: string }>`
    SELECT sealed FROM app_credentials WHERE app_id = ${where.appId} AND bound_to = ${where.boundTo}`[0];
  if (!row) return null;
  return unseal(await key(keySecret), aad(where.tenantId, where.appId, where.boundTo), row.sealed);
}
