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
