import { DurableObject } from "cloudflare:workers";
import { type CatalogDocument, catalogProblems } from "../../apps/catalog.ts";
import type { FieldProblem } from "../../apps/check.ts";
import { confirmationProblems } from "../../apps/destination-review.ts";
import { type Mode, modeOf } from "../../apps/egress.ts";
import type { Manifest, McpToolDefinition } from "../../apps/manifest.ts";
import type { AuditType } from "../../audit-types.ts";
import { newApiKey } from "../../credentials.ts";
import { MODEL_ROLES, type ModelConfig, type ModelRole } from "../../llm/index.ts";
import { pinsOf, type ToolChange } from "../../mcp/definitions.ts";
import type { Policy } from "../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { AuditRow } from "../audit-batch.ts";
import { sha256Hex } from "../crypto.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import type { Fetched } from "../tenant-replica/bounded.ts";
import { forgetTenant } from "../tenant-replica/index.ts";
import type { Totals } from "../tenant-replica/ledger.ts";
import { APP_CREDENTIAL_MIGRATIONS, openCredential, storeCredential } from "./app-credentials.ts";
import {
  AUDIT_MIGRATIONS,
  type AuditQuery,
  appendAudit,
  appendAuditRows,
  auditAbout,
  readAudit,
  redactAbout,
} from "./audit.ts";
import {
  applyEdit,
  type CatalogEdit,
  type EditFailure,
  type EntryFilter,
  entryProblems,
  listEntries,
  proposals,
} from "./catalog-entries.ts";
import {
  type Broken,
  bindingsProblems,
  brokenBindings,
  CATALOG_MIGRATIONS,
  currentCatalog,
  LiveBindings,
  putCatalog,
  sanitisedDestinationProblems,
  staleCatalog,
} from "./catalog-store.ts";
import { type ConfigDiff, diffConfig, exportConfig, type TenantConfig } from "./config-document.ts";
import { applyPlan, type ImportContext, planImport } from "./config-import.ts";
import type { IssuedKey, KeyInfo, KeyRole } from "./keys.ts";
import * as keys from "./keys.ts";
import { recordToolDrift } from "./mcp-drift.ts";
import { MODEL_KEY_MIGRATIONS, storedBindings } from "./model-keys.ts";
import { resolveModel, type SettingsContext, sealLegacyKeys, writePolicy } from "./model-settings.ts";
import { maskedPolicy, POLICY_MIGRATIONS, PolicyCache } from "./policy-store.ts";
import * as registry from "./registry.ts";
import * as serving from "./serving.ts";
import { PlanningViews, type ServingState, servingState } from "./serving-state.ts";
import {
  type CountedKind,
  Counters,
  dailyLimit,
  type QuotaCheck,
  type QuotaKind,
  USAGE_MIGRATIONS,
} from "./usage.ts";

/** The tenant record and its keys; each module below owns its own migrations (see migrate()). */
const TENANT_MIGRATIONS = [
  `CREATE TABLE tenant (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
  `CREATE TABLE keys (
     id TEXT PRIMARY KEY, role TEXT NOT NULL, label TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL, revoked_at TEXT)`,
];
const MIGRATIONS = {
  tenant: TENANT_MIGRATIONS,
  registry: registry.REGISTRY_MIGRATIONS,
  audit: AUDIT_MIGRATIONS,
  policy: POLICY_MIGRATIONS,
  catalog: CATALOG_MIGRATIONS,
  model_keys: MODEL_KEY_MIGRATIONS,
  usage: USAGE_MIGRATIONS,
  app_credentials: APP_CREDENTIAL_MIGRATIONS,
};
/** The order the lists were spliced in before migrations were keyed. */
const LEGACY_LAYOUT = [
  ["tenant", 2],
  ["registry", 2],
  ["audit", 1],
  ["policy", 1],
] as const;

/** One per tenant: the tenant record, its API keys (hashed), the app registry and the audit log. */
export class TenantDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private readonly policies = new PolicyCache();
  private readonly live = new LiveBindings();
  private readonly views = new PlanningViews();
  private readonly usage: Counters;
  /** Resolved models by role, for the policy version they were resolved under (modelConfig). */
  private readonly models = new Map<ModelRole, { version: number; config: ModelConfig }>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    this.usage = new Counters(this.sql);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
    // Keys written into policy documents before they were sealed move out, once. A document that no
    // longer decodes must not take the object down; the key stays unused.
    void ctx.blockConcurrencyWhile(() =>
      sealLegacyKeys(this.settings()).catch((error: unknown) =>
        this.audit("model_key_migration_failed", {
          reason: error instanceof Error ? error.message : String(error),
        }),
      ),
    );
  }

  // --- tenant and keys ---

  /** Creates the tenant and its first admin key; refuses a second call (the id is random, so this is a bug guard). */
  async create(
    tenantId: string,
    name: string,
  ): Promise<{ tenantId: string; name: string; adminKey: IssuedKey }> {
    if (this.info()) throw new Error("tenant already exists");
    this.sql`INSERT INTO tenant (id, name, created_at) VALUES (${tenantId}, ${name}, ${now()})`;
    const adminKey = await this.issueKey("admin", "first admin key");
    return { tenantId, name, adminKey };
  }

  info(): { id: string; name: string; createdAt: string } | null {
    const row = this.sql<{ id: string; name: string; created_at: string }>`SELECT * FROM tenant`[0];
    return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
  }

  async issueKey(role: KeyRole, label: string): Promise<IssuedKey> {
    const tenant = this.info();
    if (!tenant) throw new Error("tenant does not exist");
    return keys.insertKey(this.sql, role, label, await newApiKey(this.env.LATTICE_KEY_SECRET, tenant.id));
  }

  listKeys(): KeyInfo[] {
    return keys.listKeys(this.sql);
  }

  /**
   * Takes effect at once here; Workers trust a verified key for at most PRINCIPAL_TTL_MS
   * (principal-cache.ts), and the user tokens and consent links it issued for at most STATE_BOUND_MS.
   */
  revokeKey(id: string): KeyInfo | null {
    const revoked = keys.revokeKey(this.sql, id);
    if (revoked) {
      this.changed(); // its user tokens and consent links end with it: replicas carry revoked ids
    }
    return revoked;
  }

  async authenticate(secret: string): Promise<{ keyId: string; role: KeyRole } | null> {
    return keys.findKey(this.sql, await sha256Hex(secret));
  }

  // --- app registry (registry.ts) ---

  registerApp(ownerKeyId: string, manifest: Manifest, chosenId?: string) {
    const result = registry.registerApp(this.sql, ownerKeyId, manifest, chosenId);
    if (result.ok) this.audit("app_registered", { appId: result.app.id, name: manifest.name });
    return result;
  }

  submitVersion(ownerKeyId: string, appId: string, manifest: Manifest) {
    return registry.submitVersion(this.sql, ownerKeyId, appId, manifest);
  }

  /** The owner's new signing secret (shown once); audited with the key that asked. */
  rotateSecret(ownerKeyId: string, appId: string, immediate = false) {
    const rotated = registry.rotateSecret(this.sql, ownerKeyId, appId, immediate);
    if (rotated) this.changed();
    if (rotated)
      this.audit("app_secret_rotated", {
        appId,
        keyId: ownerKeyId,
        previousValidUntil: rotated.previousValidUntil,
      });
    return rotated;
  }

  ownedApp(ownerKeyId: string, appId: string) {
    return registry.ownedApp(this.sql, ownerKeyId, appId);
  }

  ownedApps(ownerKeyId: string) {
    return registry.ownedApps(this.sql, ownerKeyId);
  }

  /** One version of the owner's app with its secrets, for a try-it call (serving.ts triableApp). */
  triableApp(ownerKeyId: string, appId: string, version: number) {
    return serving.triableApp(this.sql, ownerKeyId, appId, version);
  }

  listApps(status?: registry.ReviewState) {
    return registry.listApps(this.sql, status);
  }

  /**
   * Approving binds functionalities to catalog entries (refused where the app could not serve every
   * request of the entry) and keeps the destination lists the admin confirmed (of schema paths).
   */
  async review(
    appId: string,
    version: number,
    decision: registry.Approval | { approve: false; reason: string },
  ): Promise<ReturnType<typeof registry.review> | Failure<"invalid_binding" | "invalid_destinations">> {
    const pending = registry.pendingVersion(this.sql, appId, version);
    if (decision.approve) {
      const problems = bindingsProblems(pending, currentCatalog(this.sql), decision.bindings ?? {});
      if (problems.length) return failure("invalid_binding", "a binding does not hold", problems);
      const paths = confirmationProblems(pending?.manifest, decision.destinations);
      if (paths.length) return failure("invalid_destinations", "a destination does not hold", paths);
    }
    // An MCP version pins the digest of every tool definition it was reviewed with.
    const definitions = pending?.manifest.mcp?.definitions;
    const pins = decision.approve && definitions ? await pinsOf(definitions) : null;
    const reviewed = decision.approve ? { ...decision, pins } : decision;
    const result = registry.review(this.sql, appId, version, reviewed);
    if (result.ok) {
      this.changed();
      this.audit(decision.approve ? "app_approved" : "app_rejected", { appId, version, ...decision });
    }
    return result;
  }

  setAppEnabled(appId: string, enabled: boolean) {
    const app = registry.setEnabled(this.sql, appId, enabled);
    if (app) this.changed();
    if (app) this.audit(enabled ? "app_enabled" : "app_disabled", { appId });
    return app;
  }

  // --- MCP apps: credentials (app-credentials.ts) and drift ---

  /** Seals the secret an app's MCP server is reached with, for the URL it is given for. */
  async storeAppCredential(appId: string, boundTo: string, credential: string): Promise<void> {
    const secret = this.env.LATTICE_KEY_SECRET;
    if (!secret)
      throw new Error("this deployment cannot store app credentials: LATTICE_KEY_SECRET is not set");
    await storeCredential(this.sql, secret, { tenantId: this.tenantId(), appId, boundTo }, credential);
    this.changed();
    this.audit("app_credential_stored", { appId, boundTo });
  }

  /** The opened secret for `boundTo`, for a spoke or a re-import; null when none is stored for it. */
  async appCredential(appId: string, boundTo: string): Promise<string | null> {
    const secret = this.env.LATTICE_KEY_SECRET;
    if (!secret) return null;
    return openCredential(this.sql, secret, { tenantId: this.tenantId(), appId, boundTo });
  }

  /** A spoke found the server's tools changed since `version` was approved (mcp-drift.ts). */
  recordToolDrift(appId: string, version: number, changes: ToolChange[], definitions: McpToolDefinition[]) {
    const { lattices } = this.policies.get(this.sql).policy;
    const report = { appId, version, changes, definitions };
    const detail = recordToolDrift(this.sql, report, modeOf(this.env), lattices);
    if (detail) this.changed();
    if (detail) this.audit("mcp_tools_changed", detail);
  }

  /**
   * A write to what replicas hold (serving-state.ts): the state's stamp moves, so every replica is
   * sent the new state at its next refresh, and this isolate's copy goes at once.
   */
  private changed(): void {
    registry.registryChanged(this.sql);
    const tenant = this.info();
    if (tenant) forgetTenant(tenant.id);
  }

  private tenantId(): string {
    const tenant = this.info();
    if (!tenant) throw new Error("tenant does not exist");
    return tenant.id;
  }

  /** Whether the app exists here at all: routes check it before they address the app's spoke. */
  hasApp(appId: string): boolean {
    return registry.hasApp(this.sql, appId);
  }

  // --- catalog (catalog-store.ts) ---

  catalog() {
    return currentCatalog(this.sql);
  }

  /**
   * Replaces the catalog whole. Bindings of serving apps that no longer hold are listed: they stop
   * serving their entry until the app's next version is bound again. With `expected`, only while
   * that version is in force: two admins never overwrite each other's change unseen.
   */
  putCatalog(
    doc: CatalogDocument,
    expected?: number,
  ): Ok<{ version: number; broken: Broken }> | Failure<"invalid_catalog" | "version_mismatch"> {
    const stale = staleCatalog(this.sql, expected);
    if (stale) return stale;
    const { policy } = this.policies.get(this.sql);
    const problems = [...catalogProblems(doc, policy.lattices), ...sanitisedDestinationProblems(doc, policy)];
    if (problems.length) return failure("invalid_catalog", "catalog refused", problems);
    const version = putCatalog(this.sql, doc);
    const broken = brokenBindings(serving.servingApps(this.sql), doc.entries, this.live);
    this.changed();
    this.audit("catalog_updated", { version, broken });
    return { ok: true, version, broken };
  }

  /** One entry created, replaced or deleted (catalog-entries.ts): a new version, checked as putCatalog. */
  editCatalog(edit: CatalogEdit, expected?: number): Ok<{ version: number; broken: Broken }> | EditFailure {
    const stale = staleCatalog(this.sql, expected);
    if (stale) return stale;
    const applied = applyEdit(currentCatalog(this.sql).entries, edit);
    if (!applied.ok) return applied;
    const result = this.putCatalog(applied.doc);
    if (result.ok || result.code !== "invalid_catalog") return result;
    const named = entryProblems(result.details as FieldProblem[], applied.doc, applied.at);
    return failure("invalid_catalog", "catalog entry refused", named);
  }

  /** The catalog's entries with the serving apps bound to each, filtered (catalog-entries.ts). */
  catalogEntries(filter: EntryFilter = {}) {
    const catalog = currentCatalog(this.sql);
    return {
      version: catalog.version,
      entries: listEntries(catalog, serving.servingApps(this.sql), this.live, filter),
    };
  }

  /**
   * An approved version's bindings replaced whole, without a new version from its developer: only
   * the newest approved version's (the one serving), each checked as at approval.
   */
  bindApp(
    appId: string,
    version: number,
    bindings: registry.Bindings,
  ): Ok<{ app: registry.AppView }> | Failure<"not_found" | "not_serving" | "invalid_binding"> {
    const stored = registry.storedVersion(this.sql, appId, version);
    if (!stored) return failure("not_found", "no such app version");
    if (!stored.newestApproved)
      return failure("not_serving", "only the newest approved version's bindings can change");
    const problems = bindingsProblems(stored, currentCatalog(this.sql), bindings);
    if (problems.length) return failure("invalid_binding", "a binding does not hold", problems);
    const app = registry.setBindings(this.sql, appId, version, bindings)!;
    this.changed();
    this.audit("app_bindings_changed", { appId, version, before: stored.bindings, bindings });
    return { ok: true, app };
  }

  /** For each functionality of a version that no binding serves, an entry to start from (no app text). */
  catalogProposals(appId: string, version: number) {
    const stored = registry.storedVersion(this.sql, appId, version);
    return stored && proposals(stored.name, stored, currentCatalog(this.sql));
  }

  /**
   * What hubs, spokes and the edge hold of this tenant (tenant-replica/): sent whole unless `known`
   * is its stamp, so a replica that is still current costs a stamp's round trip.
   */
  async servingState(known: string | null = null): Promise<Fetched<ServingState>> {
    const stored = this.policies.get(this.sql);
    const { stamp, view } = this.views.current(this.sql, stored, this.live);
    if (known === stamp) return { stamp, value: null };
    const models = Object.fromEntries(
      await Promise.all(
        MODEL_ROLES.map(async (role) => [role, await this.modelConfig(role, stored.version)]),
      ),
    ) as Record<ModelRole, ModelConfig>;
    const open = (appId: string, boundTo: string) => this.appCredential(appId, boundTo);
    return { stamp, value: await servingState(this.sql, { stored, view, models }, open) };
  }

  // --- configuration as code (config-document.ts, config-import.ts) ---

  /** The tenant's configuration as one document, and its ETag. */
  async exportConfig(): Promise<{ document: TenantConfig; etag: string }> {
    const { document, etag } = await exportConfig(
      this.sql,
      this.policies.get(this.sql),
      storedBindings(this.sql),
    );
    return { document, etag };
  }

  /** What importing `document` would change, and the problems that would refuse it. */
  async diffConfig(document: TenantConfig) {
    const live = await exportConfig(this.sql, this.policies.get(this.sql), storedBindings(this.sql));
    const planned = await planImport(
      document,
      importContext(live, modeOf(this.env), this.policies.get(this.sql).policy, this.sql),
    );
    const problems = planned.ok ? [] : (planned.details as FieldProblem[]);
    return { etag: live.etag, diff: diffConfig(live.document, document), problems };
  }

  /**
   * Applies a document whole, or nothing of it: checked whole first, then written in one storage
   * transaction. No other call runs on this object meanwhile (the checks await digests), so what
   * was checked is what is written over. With `expected`, only while that ETag is in force.
   */
  importConfig(
    document: TenantConfig,
    expected?: string,
  ): Promise<
    Ok<{ etag: string; diff: ConfigDiff; broken: Broken }> | Failure<"invalid_config" | "version_mismatch">
  > {
    return this.ctx.blockConcurrencyWhile(async () => {
      const live = await exportConfig(this.sql, this.policies.get(this.sql), storedBindings(this.sql));
      if (expected !== undefined && expected !== live.etag)
        return failure("version_mismatch", `the configuration's ETag is ${live.etag}, not ${expected}`, {
          etag: live.etag,
        });
      const planned = await planImport(
        document,
        importContext(live, modeOf(this.env), this.policies.get(this.sql).policy, this.sql),
      );
      if (!planned.ok) return planned;
      const diff = diffConfig(live.document, document);
      const { decisions, ...versions } = this.ctx.storage.transactionSync(() =>
        applyPlan(this.sql, planned.plan),
      );
      const broken = brokenBindings(
        serving.servingApps(this.sql),
        currentCatalog(this.sql).entries,
        this.live,
      );
      this.changed();
      const changes = diff.policy.length + diff.catalog.length + diff.apps.length;
      this.audit("config_imported", { ...versions, changes, paths: changedPaths(diff), broken });
      // Each decision also as its own route's row (marked as the import's): the summary above lists
      // at most 50 paths, and what keys on app_approved or app_disabled must see an import's too.
      for (const { kind, detail } of decisions) this.audit(kind, detail);
      const now = await exportConfig(this.sql, this.policies.get(this.sql), storedBindings(this.sql));
      return { ok: true as const, etag: now.etag, diff, broken };
    });
  }

  // --- policy and quotas (policy-store.ts, usage.ts) ---

  /** The policy in force, parsed, defaults filled in (for the hub and spokes; carries API keys). */
  policy() {
    return this.policies.get(this.sql);
  }

  /** The policy as an admin may read it: a stored API key shown masked, never sent. */
  policyForAdmin() {
    return maskedPolicy(this.policies.get(this.sql), storedBindings(this.sql));
  }

  /** A new policy version; a model key in it is sealed and stored apart, never in the document. */
  async putPolicy(document: unknown) {
    const result = await writePolicy(this.settings(), document);
    if (result.ok) this.changed();
    const detail = result.ok ? { version: result.version } : { issues: result.details };
    this.audit(result.ok ? "policy_updated" : "policy_refused", detail);
    return result;
  }

  /** Counts one of today's queries, app calls or plain calls, or refuses it past the tenant's quota. */
  spend(kind: CountedKind, amount = 1): QuotaCheck {
    const limit = dailyLimit(this.policies.get(this.sql).policy.quotas, kind);
    const check = this.usage.spend(kind, amount, limit);
    if (!check.ok) this.audit("quota_exceeded", { quota: kind, limit });
    return check;
  }

  /** An isolate's batch of counts (tenant-replica/ledger.ts); answers today's totals. */
  recordUsage(day: string, counts: Partial<Totals>): Totals {
    for (const [kind, amount] of Object.entries(counts) as Array<[QuotaKind, number]>)
      this.usage.record(kind, amount, day);
    return this.usage.totals();
  }

  /** Near a limit, an isolate's batch and then one exact spend (`amount` 0: whether any is left). */
  spendExact(
    day: string,
    counts: Partial<Totals>,
    kind: QuotaKind,
    amount: number,
  ): { check: QuotaCheck; totals: Totals } {
    this.recordUsage(day, counts);
    const { quotas } = this.policies.get(this.sql).policy;
    const check =
      kind === "model_tokens"
        ? this.usage.left(kind, quotas.modelTokensPerDay)
        : amount > 0
          ? this.spend(kind, amount)
          : this.usage.left(kind, dailyLimit(quotas, kind));
    return { check, totals: this.usage.totals() };
  }

  /**
   * A role's model with its key opened, held per policy version (both change only with a new one);
   * held by isolates only in memory (tenant-replica/). The deployment's own key goes only to its own endpoint.
   */
  async modelConfig(role: ModelRole, version = this.policies.get(this.sql).version): Promise<ModelConfig> {
    const held = this.models.get(role);
    if (held?.version === version) return held.config;
    const config = await resolveModel(this.settings(), role);
    this.models.set(role, { version, config });
    return config;
  }

  /** What the model-settings functions need of this object. */
  private settings(): SettingsContext {
    return {
      storage: this.ctx.storage,
      sql: this.sql,
      env: this.env,
      tenantId: this.info()?.id ?? null,
      policy: () => this.policies.get(this.sql).policy,
      requestSchemas: () => new Map(currentCatalog(this.sql).entries.map((e) => [e.name, e.request])),
      audit: (type, detail) => this.audit(type, detail),
    };
  }

  // --- audit log (audit.ts) ---

  /** The TenantDO's own events, written here; every other writer batches (objects/audit-sink.ts). */
  audit(type: AuditType, detail: Record<string, unknown>): void {
    appendAudit(this.sql, type, detail, () => this.policies.get(this.sql).policy.retention.auditDays);
  }

  /** A batch of events from a hub, a spoke or the edge, in one transaction, each at its own time. */
  appendAudit(rows: AuditRow[]): void {
    const keepDays = () => this.policies.get(this.sql).policy.retention.auditDays;
    this.ctx.storage.transactionSync(() => appendAuditRows(this.sql, rows, keepDays));
  }

  readAudit(since: { seq: number } | { at: string }, limit = 200) {
    return readAudit(this.sql, { order: "asc", since }, limit);
  }

  /** The rows about a user, for their export (#34): oldest first, bounded (audit.ts). */
  userAudit(userId: string) {
    return auditAbout(this.sql, userId);
  }

  /**
   * A user's erasure, in the log (#34): every row about them kept with its values redacted, then the
   * erasure itself recorded (with its report, after the redaction, so it stays whole).
   */
  userErased(userId: string, detail: Record<string, unknown>): { auditRedacted: number } {
    return this.ctx.storage.transactionSync(() => {
      const auditRedacted = redactAbout(this.sql, userId);
      this.audit("user_erased", { ...detail, userId, auditRedacted });
      return { auditRedacted };
    });
  }

  /** The audit log as GET /v1/admin/audit reads it: either order, filtered by type. */
  queryAudit(q: AuditQuery, limit = 200) {
    return readAudit(this.sql, q, limit);
  }
}

const now = () => new Date().toISOString();

/** What an import is checked against: the tenant as exported now. */
const importContext = (live: Exported, mode: Mode, policy: Policy, sql: Sql): ImportContext => ({
  mode,
  live: live.document,
  liveApps: live.apps,
  policy,
  storedKeys: storedBindings(sql),
});
type Exported = Awaited<ReturnType<typeof exportConfig>>;

/** The audit row names what an import changed, at most 50 paths (the diff itself can be large). */
const changedPaths = (diff: ConfigDiff) =>
  [...diff.policy, ...diff.catalog, ...diff.apps].slice(0, 50).map((c) => `${c.change} ${c.path}`);
