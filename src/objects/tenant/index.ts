import { DurableObject } from "cloudflare:workers";
import type { CatalogDocument } from "../../apps/catalog.ts";
import type { FieldProblem } from "../../apps/check.ts";
import { confirmationProblems } from "../../apps/destination-review.ts";
import { modeOf } from "../../apps/egress.ts";
import type { Manifest, McpToolDefinition } from "../../apps/manifest.ts";
import type { AuditType } from "../../audit-types.ts";
import { newApiKey } from "../../credentials.ts";
import { MODEL_ROLES, type ModelConfig, type ModelRole } from "../../llm/index.ts";
import { pinsOf, type ToolChange } from "../../mcp/definitions.ts";
import { type Failure, failure } from "../../result.ts";
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
  bindApp,
  type CatalogContext,
  type CatalogWrite,
  catalogEntries,
  catalogProposals,
  editCatalog,
  replaceCatalog,
} from "./catalog.ts";
import type { CatalogEdit, EditFailure, EntryFilter } from "./catalog-entries.ts";
import { bindingsProblems, CATALOG_MIGRATIONS, currentCatalog, LiveBindings } from "./catalog-store.ts";
import {
  type ConfigContext,
  diffTenantConfig,
  exportTenantConfig,
  type ImportResult,
  importTenantConfig,
} from "./config.ts";
import type { ConfigDiff, TenantConfig } from "./config-document.ts";
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
  type QuotaCheck,
  type QuotaKind,
  TenantQuotas,
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
  /** Today's counters against the policy's quotas (usage.ts). */
  private readonly quotas: TenantQuotas;
  /** Resolved models by role, for the policy version they were resolved under (modelConfig). */
  private readonly models = new Map<ModelRole, { version: number; config: ModelConfig }>();
  /** What the capability modules (catalog.ts, config.ts) need of this object. */
  private readonly capability: CatalogContext & ConfigContext;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    this.quotas = new TenantQuotas(
      new Counters(this.sql),
      () => this.policies.get(this.sql).policy.quotas,
      (detail) => this.audit("quota_exceeded", detail),
    );
    this.capability = {
      state: ctx,
      env,
      sql: this.sql,
      policy: () => this.policies.get(this.sql),
      live: this.live,
      changed: () => this.changed(),
      audit: (type, detail) => this.audit(type, detail),
    };
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

  /** Replaces the catalog whole, or refuses it (catalog.ts). */
  putCatalog(
    doc: CatalogDocument,
    expected?: number,
  ): CatalogWrite | Failure<"invalid_catalog" | "version_mismatch"> {
    return replaceCatalog(this.capability, doc, expected);
  }

  /** One entry created, replaced or deleted (catalog.ts): a new version, checked as putCatalog. */
  editCatalog(edit: CatalogEdit, expected?: number): CatalogWrite | EditFailure {
    return editCatalog(this.capability, edit, expected);
  }

  /** The catalog's entries with the serving apps bound to each, filtered (catalog-entries.ts). */
  catalogEntries(filter: EntryFilter = {}) {
    return catalogEntries(this.capability, filter);
  }

  /** An approved version's bindings replaced whole (catalog.ts). */
  bindApp(appId: string, version: number, bindings: registry.Bindings) {
    return bindApp(this.capability, appId, version, bindings);
  }

  /** For each functionality of a version that no binding serves, an entry to start from (no app text). */
  catalogProposals(appId: string, version: number) {
    return catalogProposals(this.sql, appId, version);
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

  // --- configuration as code (config.ts) ---

  exportConfig(): Promise<{ document: TenantConfig; etag: string }> {
    return exportTenantConfig(this.capability);
  }

  diffConfig(document: TenantConfig): Promise<{ etag: string; diff: ConfigDiff; problems: FieldProblem[] }> {
    return diffTenantConfig(this.capability, document);
  }

  importConfig(document: TenantConfig, expected?: string): Promise<ImportResult> {
    return importTenantConfig(this.capability, document, expected);
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
    return this.quotas.spend(kind, amount);
  }

  /** An isolate's batch of counts (tenant-replica/ledger.ts); answers today's totals. */
  recordUsage(day: string, counts: Partial<Totals>): Totals {
    return this.quotas.record(day, counts);
  }

  /** Near a limit, an isolate's batch and then one exact spend (usage.ts). */
  spendExact(
    day: string,
    counts: Partial<Totals>,
    kind: QuotaKind,
    amount: number,
  ): { check: QuotaCheck; totals: Totals } {
    return this.quotas.spendExact(day, counts, kind, amount);
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
