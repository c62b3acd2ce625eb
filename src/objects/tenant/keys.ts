import { randomToken } from "../crypto.ts";

export const KEY_ROLES = ["admin", "developer", "frontend"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/**
 * An API key reads `lk.<tenantId>.<secret>`: the tenant id routes the request to its TenantDO
 * (which alone can confirm the key), the secret is 256 random bits and is stored only as SHA-256.
 */
const KEY = /^lk\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/;

export function newKeySecret(tenantId: string): string {
  return `lk.${tenantId}.${randomToken(32)}`;
}

export function tenantOfKey(key: string): string | null {
  return KEY.exec(key)?.[1] ?? null;
}

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
