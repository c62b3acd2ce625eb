import { z } from "@hono/zod-openapi";
import { CatalogDocument } from "../../apps/catalog.ts";
import { ConfirmedDestinations } from "../../apps/destination-review.ts";
import { Manifest } from "../../apps/manifest.ts";
import { decode } from "../../decode.ts";
import { canonicalJson } from "../../mcp/definitions.ts";
import { isRecord, parseNewPolicy } from "../../policy/index.ts";
import { sha256Hex } from "../crypto.ts";
import type { Sql } from "../sql.ts";
import { currentCatalog } from "./catalog-store.ts";
import type { KeyBinding } from "./model-keys.ts";
import { maskedPolicy, type StoredPolicy } from "./policy-store.ts";
import { bindingsOf, confirmedOf, REVIEW_STATES, type VersionRow } from "./registry.ts";

/**
 * A tenant's configuration as one versioned document (issue #34): its policy (clearance levels,
 * roles and model settings included), its catalog, and the admin's decisions on each app version
 * (approved with a clearance, bindings and confirmed destinations, or rejected) and whether each
 * app is enabled. Not in it: API keys, model keys and app secrets (secrets, never configuration:
 * a stored model key shows as "********", which an import keeps), usage and audit (history), and
 * the apps' manifests, which their developers own: a version is named by its app id, number and
 * manifest digest, so a document written against another manifest is refused, not applied to it.
 */

const Digest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, "sha256: and 64 hex digits, as exported")
  .openapi({ description: "sha256 of the manifest's canonical JSON (keys sorted): the version reviewed" });

export const ConfigVersion = z
  .object({
    version: z.number().int().positive(),
    manifestDigest: Digest,
    status: z.enum(REVIEW_STATES),
    clearance: z.string().nullable().openapi({ description: "Set when approved: a confidentiality level" }),
    bindings: z.record(z.string(), z.string()).openapi({ description: "Functionality → catalog entry" }),
    destinations: ConfirmedDestinations,
    reason: z.string().max(2000).nullable().openapi({ description: "Set when rejected" }),
  })
  .strict()
  .openapi("ConfigAppVersion");

export const ConfigApp = z
  .object({
    appId: z.string().min(1).max(64),
    name: z.string().openapi({ description: "The developer's name for it; must match, never changes it" }),
    enabled: z.boolean(),
    versions: z.array(ConfigVersion).max(1000),
  })
  .strict()
  .openapi("ConfigApp");

export const TenantConfig = z
  .object({
    lattice: z.literal("tenant-config"),
    version: z.literal(1),
    policy: z.record(z.string(), z.unknown()).openapi({ description: "As PUT /v1/admin/policy takes it" }),
    catalog: CatalogDocument,
    apps: z.array(ConfigApp).max(1000),
  })
  .strict()
  .openapi("TenantConfig", {
    description:
      "A tenant's configuration (docs/config-as-code.md): policy, catalog, app approvals and bindings",
  });
export type TenantConfig = z.infer<typeof TenantConfig>;
export type ConfigVersion = z.infer<typeof ConfigVersion>;

export const ConfigChange = z
  .object({
    path: z.string(),
    change: z.enum(["added", "removed", "changed"]),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
  })
  .openapi("ConfigChange");
export type ConfigChange = z.infer<typeof ConfigChange>;

export const ConfigDiff = z
  .object({
    identical: z.boolean(),
    policy: z.array(ConfigChange),
    catalog: z.array(ConfigChange),
    apps: z.array(ConfigChange),
  })
  .openapi("ConfigDiff", {
    description:
      "What an import would change, per section: the live tenant is `before`, the document `after`. Apps and versions the document leaves out are left as they are and not listed.",
  });
export type ConfigDiff = z.infer<typeof ConfigDiff>;

/** The digest a document names a manifest by: key order never counts as a change. */
export const manifestDigest = async (manifest: unknown) =>
  `sha256:${await sha256Hex(canonicalJson(manifest))}`;

/** A version row as the configuration reads it, with its manifest for the checks an import runs. */
export type LiveVersion = ConfigVersion & { manifest: Manifest };
export type LiveApp = { appId: string; name: string; enabled: boolean; versions: LiveVersion[] };

/** Every app and version of the tenant, with the admin's decisions on each. */
export async function liveApps(sql: Sql): Promise<LiveApp[]> {
  const apps = sql<{ id: string; name: string; enabled: number }>`
    SELECT id, name, enabled FROM apps ORDER BY name`;
  return Promise.all(
    apps.map(async (app) => ({
      appId: app.id,
      name: app.name,
      enabled: app.enabled === 1,
      versions: await Promise.all(
        sql<VersionRow>`SELECT * FROM app_versions WHERE app_id = ${app.id} ORDER BY version`.map(
          async (v): Promise<LiveVersion> => {
            const manifest = decode(Manifest, v.manifest, "a stored manifest");
            return {
              version: v.version,
              manifestDigest: await manifestDigest(manifest),
              status: z.enum(REVIEW_STATES).parse(v.status),
              clearance: v.clearance,
              bindings: bindingsOf(v),
              destinations: confirmedOf(v),
              reason: v.reason,
              manifest,
            };
          },
        ),
      ),
    })),
  );
}

/** The document for the tenant as it stands, and its ETag (a digest of it: any change moves it). */
export async function exportConfig(
  sql: Sql,
  policy: StoredPolicy,
  keys: readonly KeyBinding[],
): Promise<{ document: TenantConfig; etag: string; apps: LiveApp[] }> {
  const apps = await liveApps(sql);
  const document: TenantConfig = {
    lattice: "tenant-config",
    version: 1,
    // Through JSON: the parsed policy's unset optional fields are absent, as in any file.
    policy: JSON.parse(JSON.stringify(maskedPolicy(policy, keys).policy)),
    catalog: { entries: currentCatalog(sql).entries },
    apps: apps.map(({ versions, ...app }) => ({
      ...app,
      versions: versions.map(({ manifest: _, ...v }) => v),
    })),
  };
  return { document, etag: await configEtag(document), apps };
}

export const configEtag = async (document: TenantConfig) =>
  `"${(await sha256Hex(canonicalJson(document))).slice(0, 32)}"`;

/**
 * The policy as it would be stored, every default filled in: a document that leaves a default out
 * means the same policy, and is not reported as a change. One that does not parse stays as written
 * (the import refuses it, naming the field).
 */
export function normalPolicy(policy: Record<string, unknown>): Record<string, unknown> {
  const parsed = parseNewPolicy(policy);
  if (!parsed.ok) return policy;
  return JSON.parse(JSON.stringify(parsed.policy));
}

/** What importing `document` would change in the tenant exported as `live`. */
export function diffConfig(live: TenantConfig, document: TenantConfig): ConfigDiff {
  const policy: ConfigChange[] = [];
  treeDiff(normalPolicy(live.policy), normalPolicy(document.policy), "policy", policy);
  const catalog: ConfigChange[] = [];
  treeDiff(byName(live.catalog.entries), byName(document.catalog.entries), "catalog.entries", catalog);
  const apps: ConfigChange[] = [];
  const liveApps = new Map(live.apps.map((a) => [a.appId, a]));
  for (const app of document.apps) {
    const at = `apps[${app.appId}]`;
    const was = liveApps.get(app.appId);
    if (!was) {
      apps.push({ path: at, change: "added", after: app });
      continue;
    }
    treeDiff({ name: was.name, enabled: was.enabled }, { name: app.name, enabled: app.enabled }, at, apps);
    const versions = new Map(was.versions.map((v) => [v.version, v]));
    for (const v of app.versions) {
      const before = versions.get(v.version);
      if (!before) apps.push({ path: `${at}.versions[${v.version}]`, change: "added", after: v });
      else treeDiff(before, v, `${at}.versions[${v.version}]`, apps);
    }
  }
  const identical = !policy.length && !catalog.length && !apps.length;
  return { identical, policy, catalog, apps };
}

const byName = (entries: ReadonlyArray<{ name: string }>) =>
  Object.fromEntries(entries.map((e) => [`[${e.name}]`, e]));

/** Object trees compared key by key; anything else (arrays included) compared whole. */
function treeDiff(before: unknown, after: unknown, path: string, out: ConfigChange[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const at = key.startsWith("[") ? `${path}${key}` : `${path}.${key}`;
      if (before[key] === undefined && after[key] === undefined) continue;
      if (before[key] === undefined) out.push({ path: at, change: "added", after: after[key] });
      else if (after[key] === undefined) out.push({ path: at, change: "removed", before: before[key] });
      else treeDiff(before[key], after[key], at, out);
    }
    return;
  }
  if (canonicalJson(before) !== canonicalJson(after)) out.push({ path, change: "changed", before, after });
}
