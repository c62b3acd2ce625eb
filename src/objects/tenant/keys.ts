import { randomId, sha256Hex } from "../crypto.ts";
import type { Sql } from "../sql.ts";

export const KEY_ROLES = ["admin", "developer", "frontend"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

// An API key reads `lk.<tenantId>.<secret>` (src/credentials.ts): the tenant id routes the request
// to its TenantDO, which confirms the key by its SHA-256; the secret is never stored.

export interface KeyInfo {
  id: string;
  role: KeyRole;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface IssuedKey extends KeyInfo {
  /** The only time the secret leaves the object. */
  secret: string;
}

type KeyRow = { id: string; role: string; label: string; created_at: string; revoked_at: string | null };

export async function insertKey(sql: Sql, role: KeyRole, label: string, secret: string): Promise<IssuedKey> {
  const id = randomId("key");
  const createdAt = new Date().toISOString();
  sql`INSERT INTO keys (id, role, label, hash, created_at)
      VALUES (${id}, ${role}, ${label}, ${await sha256Hex(secret)}, ${createdAt})`;
  return { id, role, label, createdAt, revokedAt: null, secret };
}

export function listKeys(sql: Sql): KeyInfo[] {
  return sql<KeyRow>`SELECT id, role, label, created_at, revoked_at FROM keys ORDER BY created_at, id`.map(
    toKeyInfo,
  );
}

/** Takes effect at once here; Workers trust a verified key for at most PRINCIPAL_TTL_MS (principal-cache.ts). */
export function revokeKey(sql: Sql, id: string): KeyInfo | null {
  sql`UPDATE keys SET revoked_at = ${new Date().toISOString()} WHERE id = ${id} AND revoked_at IS NULL`;
  const row = sql<KeyRow>`SELECT id, role, label, created_at, revoked_at FROM keys WHERE id = ${id}`[0];
  return row ? toKeyInfo(row) : null;
}

/** The ids of revoked keys: a user token or consent link a revoked key issued is refused (serving-state.ts). */
export function revokedKeyIds(sql: Sql): string[] {
  return sql<{ id: string }>`SELECT id FROM keys WHERE revoked_at IS NOT NULL ORDER BY id`.map((r) => r.id);
}

/** The live key with this SHA-256, if any. */
export function findKey(sql: Sql, hash: string): { keyId: string; role: KeyRole } | null {
  const row = sql<{ id: string; role: string }>`
    SELECT id, role FROM keys WHERE hash = ${hash} AND revoked_at IS NULL`[0];
  return row ? { keyId: row.id, role: keyRole(row.role) } : null;
}

function toKeyInfo(row: KeyRow): KeyInfo {
  return {
    id: row.id,
    role: keyRole(row.role),
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** A stored role that is not a key role is a bug (or tampering): refused loudly. */
function keyRole(stored: string): KeyRole {
  const role = KEY_ROLES.find((r) => r === stored);
  if (!role) throw new Error(`stored key role ${JSON.stringify(stored)} is not a key role`);
  return role;
}
