import { purposeKey } from "../../derive.ts";
import { seal, unseal } from "../seal.ts";
import type { Sql } from "../sql.ts";

/**
 * Model API keys, stored once per model setting and sealed at rest (AES-GCM, WebCrypto) under a key
 * derived from the Worker secret `LATTICE_KEY_SECRET`. A sealed key is bound to the tenant, the
 * setting, the provider and the base URL it was given for (the additional data): pointed at another
 * host it no longer opens, so a key can only ever be sent where the admin sent it. Policy
 * versions, query rows and every answer hold no key.
 */

export const MODEL_KEY_MIGRATIONS = [
  `CREATE TABLE model_keys (
     setting TEXT PRIMARY KEY, provider TEXT NOT NULL, base_url TEXT, sealed TEXT NOT NULL,
     updated_at TEXT NOT NULL)`,
];

export interface KeyBinding {
  setting: string;
  provider: string;
  baseURL: string | null;
}

type Row = {
  setting: string;
  provider: string;
  base_url: string | null;
  sealed: string;
};

export function storedBindings(sql: Sql): KeyBinding[] {
  return sql<Row>`SELECT setting, provider, base_url, sealed FROM model_keys`.map((r) => ({
    setting: r.setting,
    provider: r.provider,
    baseURL: r.base_url,
  }));
}

export function writeKey(sql: Sql, binding: KeyBinding, sealed: string): void {
  sql`INSERT INTO model_keys (setting, provider, base_url, sealed, updated_at)
      VALUES (${binding.setting}, ${binding.provider}, ${binding.baseURL}, ${sealed}, ${new Date().toISOString()})
      ON CONFLICT (setting) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url,
        sealed = excluded.sealed, updated_at = excluded.updated_at`;
}

export function dropKey(sql: Sql, setting: string): void {
  sql`DELETE FROM model_keys WHERE setting = ${setting}`;
}

/** The key stored for a setting, opened; null when none is stored or it was stored for another host. */
export async function openKey(
  sql: Sql,
  secret: string,
  tenantId: string,
  binding: KeyBinding,
): Promise<string | null> {
  const row = sql<Row>`SELECT * FROM model_keys WHERE setting = ${binding.setting}`[0];
  if (!row || row.provider !== binding.provider || row.base_url !== binding.baseURL) return null;
  // Sealed for another binding (a tampered row) or under another secret: no key, never a guess.
  return unseal(await sealingKey(secret), aad(tenantId, binding), row.sealed);
}

export async function sealKey(
  secret: string,
  tenantId: string,
  binding: KeyBinding,
  apiKey: string,
): Promise<string> {
  return seal(await sealingKey(secret), aad(tenantId, binding), apiKey);
}

const aad = (tenantId: string, b: KeyBinding) => [
  "lattice-model-key-v1",
  tenantId,
  b.setting,
  b.provider,
  b.baseURL,
];

const sealingKey = (secret: string) =>
  purposeKey(secret, "model-keys", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
