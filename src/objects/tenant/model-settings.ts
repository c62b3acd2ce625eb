import { modeOf } from "../../apps/egress.ts";
import type { AuditType } from "../../audit-types.ts";
import { type ModelConfig, type ModelRole, modelFor } from "../../llm/index.ts";
import type { Policy } from "../../policy/index.ts";
import type { Sql } from "../sql.ts";
import { dropKey, openKey, sealKey, storedBindings, writeKey } from "./model-keys.ts";
import { legacyKeys, type MODEL_SETTINGS, preparePolicy, storePolicy } from "./policy-store.ts";

/**
 * The tenant's model settings over its storage: writing a policy (its keys sealed apart), resolving
 * a role's model with its key for one call, and moving keys out of documents written before
 * sealing. The TenantDO's methods are thin over these.
 */
export interface SettingsContext {
  storage: DurableObjectStorage;
  sql: Sql;
  env: Env;
  /** Null before the tenant exists: nothing can be sealed for it. */
  tenantId: string | null;
  /** The policy in force (the object's parsed-once copy). */
  policy(): Policy;
  /** The catalog's request schemas by entry name: a new policy is checked against them. */
  requestSchemas(): ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  audit(type: AuditType, detail: Record<string, unknown>): void;
}

/** A new policy version; a model key in it is sealed and stored apart, never in the document. */
export async function writePolicy(c: SettingsContext, document: unknown) {
  const secret = c.env.LATTICE_KEY_SECRET;
  const { tenantId } = c;
  const prepared = preparePolicy(document, {
    mode: modeOf(c.env),
    stored: storedBindings(c.sql),
    canSeal: Boolean(secret && tenantId),
    requestSchemas: c.requestSchemas(),
  });
  if (!prepared.ok) return prepared;
  const sealed = await Promise.all(
    prepared.keys.map(async (k) =>
      "seal" in k && secret && tenantId
        ? { ...k, sealed: await sealKey(secret, tenantId, k.seal.binding, k.seal.apiKey) }
        : k,
    ),
  );
  const version = c.storage.transactionSync(() => {
    for (const k of sealed) {
      if ("sealed" in k) writeKey(c.sql, k.seal.binding, k.sealed);
      else if ("drop" in k) dropKey(c.sql, k.setting);
    }
    return storePolicy(c.sql, prepared);
  });
  return { ok: true as const, version };
}

/**
 * The model a role uses, resolved with its key opened: for the one call about to be made, never
 * stored by the caller. A stored key that does not open sends none, never the deployment's own in
 * its place; the deployment's key goes only to the deployment's endpoint.
 */
export async function resolveModel(c: SettingsContext, role: ModelRole): Promise<ModelConfig> {
  const policy = c.policy();
  const setting = policy.models[role] ? role : policy.models.default ? "default" : null;
  const chosen = setting ? policy.models[setting as (typeof MODEL_SETTINGS)[number]] : undefined;
  const secret = c.env.LATTICE_KEY_SECRET;
  let apiKey: string | undefined;
  if (chosen && setting && storedBindings(c.sql).some((k) => k.setting === setting)) {
    const binding = { setting, provider: chosen.provider, baseURL: chosen.baseURL ?? null };
    const opened = c.tenantId && secret ? await openKey(c.sql, secret, c.tenantId, binding) : null;
    if (opened === null) c.audit("model_key_unreadable", { setting });
    apiKey = opened ?? "";
  }
  const models =
    chosen && setting ? { [setting]: { ...chosen, ...(apiKey !== undefined && { apiKey }) } } : {};
  return modelFor(role, models, c.env);
}

/** Keys written into policy documents before they were sealed move out, once (needs the secret). */
export async function sealLegacyKeys(c: SettingsContext): Promise<void> {
  const secret = c.env.LATTICE_KEY_SECRET;
  const { tenantId } = c;
  if (!tenantId || !secret) return;
  const legacy = legacyKeys(c.sql);
  if (!legacy.found) return;
  const sealed = await Promise.all(
    legacy.keys.map(async (k) => ({ ...k, sealed: await sealKey(secret, tenantId, k.binding, k.apiKey) })),
  );
  c.storage.transactionSync(() => {
    for (const k of sealed) writeKey(c.sql, k.binding, k.sealed);
    legacy.scrub();
  });
}
