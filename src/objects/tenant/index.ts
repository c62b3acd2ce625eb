import { DurableObject } from "cloudflare:workers";
import { type CatalogDocument, catalogProblems } from "../../apps/catalog.ts";
import { confirmationProblems } from "../../apps/destination-review.ts";
import { modeOf } from "../../apps/egress.ts";
import type { Manifest, McpToolDefinition } from "../../apps/manifest.ts";
import type { AuditType } from "../../audit-types.ts";
import type { TokenNews } from "../../contracts.ts";
import { newApiKey } from "../../credentials.ts";
import type { ModelConfig, ModelRole } from "../../llm/index.ts";
import { pinsOf, type ToolChange } from "../../mcp/definitions.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { AuditRow } from "../audit-batch.ts";
import { sha256Hex } from "../crypto.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { APP_CREDENTIAL_MIGRATIONS, openCredential, storeCredential } from "./app-credentials.ts";
import { AUDIT_MIGRATIONS, type AuditQuery, appendAudit, appendAuditRows, readAudit } from "./audit.ts";
import {
  bindingsProblems,
  CATALOG_MIGRATIONS,
  currentCatalog,
  LiveBindings,
  putCatalog,
  sanitisedDestinationProblems,
} from "./catalog-store.ts";
import type { IssuedKey, KeyInfo, KeyRole } from "./keys.ts";
import * as keys from "./keys.ts";
import { recordToolDrift } from "./mcp-drift.ts";
import { MODEL_KEY_MIGRATIONS, storedBindings } from "./model-keys.ts";
import { resolveModel, type SettingsContext, sealLegacyKeys, writePolicy } from "./model-settings.ts";
import { type PlanningView, PlanningViews } from "./planning-view.ts";
import { maskedPolicy, POLICY_MIGRATIONS, PolicyCache } from "./policy-store.ts";
import * as registry from "./registry.ts";
import * as serving from "./serving.ts";
import { type CountedKind, Counters, dailyLimit, type QuotaCheck, USAGE_MIGRATIONS } from "./usage.ts";

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

  /** Takes effect at once here; Workers trust a verified key for at most PRINCIPAL_TTL_MS (principal-cache.ts). */
  revokeKey(id: string): KeyInfo | null {
    return keys.revokeKey(this.sql, id);
  }

  async authenticate(secret: string): Promise<{ keyId: string; role: KeyRole } | null> {
    return keys.findKey(this.sql, await sha256Hex(secret));
  }

  // --- app registry (registry.ts) ---

  registerApp(ownerKeyId: string, manifest: Manifest) {
    const result = registry.registerApp(this.sql, ownerKeyId, manifest);
    if (result.ok) this.audit("app_registered", { appId: result.app.id, name: manifest.name });
    return result;
  }

  submitVersion(ownerKeyId: string, appId: string, manifest: Manifest) {
    return registry.submitVersion(this.sql, ownerKeyId, appId, manifest);
  }

  /** The owner's new signing secret (shown once); audited with the key that asked. */
  rotateSecret(ownerKeyId: string, appId: string, immediate = false) {
    const rotated = registry.rotateSecret(this.sql, ownerKeyId, appId, immediate);
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
      this.audit(decision.approve ? "app_approved" : "app_rejected", { appId, version, ...decision });
    }
    return result;
  }

  setAppEnabled(appId: string, enabled: boolean) {
    const app = registry.setEnabled(this.sql, appId, enabled);
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
    if (detail) this.audit("mcp_tools_changed", detail);
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

  /** For a SpokeDO about to call the app: its approved, enabled version and secret, or null. */
  servingApp(appId: string) {
    return serving.servingApp(this.sql, appId);
  }

  servingApps() {
    return serving.servingApps(this.sql);
  }

  // --- catalog (catalog-store.ts) ---

  catalog() {
    return currentCatalog(this.sql);
  }

  /**
   * Replaces the catalog whole. Bindings of serving apps that no longer hold are listed: they stop
   * serving their entry until the app's next version is bound again.
   */
  putCatalog(
    doc: CatalogDocument,
  ):
    | Ok<{ version: number; broken: Array<{ app: string; functionality: string; entry: string }> }>
    | Failure<"invalid_catalog"> {
    const { policy } = this.policies.get(this.sql);
    const problems = [...catalogProblems(doc, policy.lattices), ...sanitisedDestinationProblems(doc, policy)];
    if (problems.length) return failure("invalid_catalog", "catalog refused", problems);
    const version = putCatalog(this.sql, doc);
    const entries = new Map(doc.entries.map((e) => [e.name, e]));
    const broken = serving.servingApps(this.sql).flatMap((app) =>
      Object.entries(app.bindings)
        .filter(([fn, entry]) => !this.live.holds(app, fn, entries.get(entry)))
        .map(([functionality, entry]) => ({ app: app.name, functionality, entry })),
    );
    this.audit("catalog_updated", { version, broken });
    return { ok: true, version, broken };
  }

  /** What planning reads in one call: the policy, the catalog, and serving apps with their live bindings. */
  planningView(): PlanningView {
    return this.views.current(this.sql, this.policies.get(this.sql), this.live).view;
  }

  /** What a planner starts from: the view (unless `known` is its stamp) and the planner's model. */
  async planningContext(known: string | null = null) {
    const { stamp, view } = this.views.current(this.sql, this.policies.get(this.sql), this.live);
    return { stamp, view: known === stamp ? null : view, planner: await this.modelFor("planner") };
  }

  /** A new query in one round trip: one of today's queries spent, then what its planning starts from. */
  async admitQuery(known: string | null) {
    const quota = this.spend("queries");
    return quota.ok ? { quota, context: await this.planningContext(known) } : { quota };
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
    const detail = result.ok ? { version: result.version } : { issues: result.details };
    this.audit(result.ok ? "policy_updated" : "policy_refused", detail);
    return result;
  }

  /** Counts one of today's queries, app calls or plain calls, or refuses it past the tenant's quota. */
  spend(kind: CountedKind): QuotaCheck {
    const limit = dailyLimit(this.policies.get(this.sql).policy.quotas, kind);
    const check = this.usage.spend(kind, 1, limit);
    if (!check.ok) this.audit("quota_exceeded", { quota: kind, limit });
    return check;
  }

  /**
   * A spoke about to call an app, in one round trip: the serving version (checked against the plan's),
   * the functionality, and one of today's app calls spent once those hold (the spoke's own checks
   * after it, request schema and egress, may still refuse the call).
   */
  beginAppCall(
    appId: string,
    functionality: string,
    version: number | undefined,
  ): ReturnType<typeof serving.callableApp> | Failure<"quota_exceeded"> {
    const found = serving.callableApp(this.sql, appId, functionality, version);
    if (!found.ok) return found;
    const quota = this.spend("app_calls");
    if (!quota.ok) return failure("quota_exceeded", quota.message);
    return found;
  }

  /** `lattice-plain` in one round trip: allowed by the policy, one of today's plain calls, its model. */
  async beginPlainCall() {
    if (!this.policies.get(this.sql).policy.plainModel.enabled)
      return failure("plain_off", "this tenant's policy does not offer lattice-plain");
    const quota = this.spend("plain_calls");
    if (!quota.ok) return failure("quota_exceeded", "the daily plain_calls quota is used up", quota.details);
    return this.modelFor("spoke");
  }

  /** A model for one call in one round trip: refused when today's tokens are used up, else resolved. */
  async modelFor(
    role: ModelRole,
  ): Promise<Ok<{ model: ModelConfig; version: number }> | Failure<"quota_exceeded", undefined>> {
    const stored = this.policies.get(this.sql);
    // Model tokens are counted after each call, by what it used (recordTokens).
    const budget = this.usage.left("model_tokens", stored.policy.quotas.modelTokensPerDay);
    if (!budget.ok) return failure("quota_exceeded", budget.message);
    return { ok: true, model: await this.modelConfig(role, stored.version), version: stored.version };
  }

  /** Counts a call's tokens; says which policy is in force and whether tokens are left (HeldModel). */
  recordTokens(tokens: number): TokenNews {
    this.usage.record("model_tokens", tokens);
    const { version, policy } = this.policies.get(this.sql);
    const left = this.usage.left("model_tokens", policy.quotas.modelTokensPerDay);
    return { version, left: left.ok };
  }

  /**
   * A role's model with its key opened, held per policy version (both change only with a new one);
   * never stored by a caller (held-model.ts). The deployment's own key goes only to its own endpoint.
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

  /** The audit log as GET /v1/admin/audit reads it: either order, filtered by type. */
  queryAudit(q: AuditQuery, limit = 200) {
    return readAudit(this.sql, q, limit);
  }
}

const now = () => new Date().toISOString();
