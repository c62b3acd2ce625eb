import type { FieldProblem } from "../../apps/check.ts";
import { type Mode, modeOf } from "../../apps/egress.ts";
import type { AuditType } from "../../audit-types.ts";
import type { Policy } from "../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { Sql } from "../sql.ts";
import { type Broken, brokenBindings, currentCatalog, type LiveBindings } from "./catalog-store.ts";
import { type ConfigDiff, diffConfig, exportConfig, type TenantConfig } from "./config-document.ts";
import { applyPlan, type ImportContext, planImport } from "./config-import.ts";
import { storedBindings } from "./model-keys.ts";
import type { StoredPolicy } from "./policy-store.ts";
import { servingApps } from "./serving.ts";

/** What configuration as code needs of its tenant (TenantDO). */
export interface ConfigContext {
  state: DurableObjectState;
  env: Env;
  sql: Sql;
  /** The policy in force (PolicyCache). */
  policy: () => StoredPolicy;
  live: LiveBindings;
  /** A write to what replicas hold (TenantDO.changed). */
  changed: () => void;
  audit: (type: AuditType, detail: Record<string, unknown>) => void;
}

export type ImportResult =
  | Ok<{ etag: string; diff: ConfigDiff; broken: Broken }>
  | Failure<"invalid_config" | "version_mismatch">;

/** The tenant's configuration as one document, and its ETag. */
export async function exportTenantConfig(
  t: ConfigContext,
): Promise<{ document: TenantConfig; etag: string }> {
  const { document, etag } = await exported(t);
  return { document, etag };
}

/** What importing `document` would change, and the problems that would refuse it. */
export async function diffTenantConfig(
  t: ConfigContext,
  document: TenantConfig,
): Promise<{ etag: string; diff: ConfigDiff; problems: FieldProblem[] }> {
  const live = await exported(t);
  const planned = await planImport(document, importContext(live, modeOf(t.env), t.policy().policy, t.sql));
  const problems = planned.ok ? [] : (planned.details as FieldProblem[]);
  return { etag: live.etag, diff: diffConfig(live.document, document), problems };
}

/**
 * Applies a document whole, or nothing of it: checked whole first, then written in one storage
 * transaction. No other call runs on this object meanwhile (the checks await digests), so what
 * was checked is what is written over. With `expected`, only while that ETag is in force.
 */
export function importTenantConfig(
  t: ConfigContext,
  document: TenantConfig,
  expected?: string,
): Promise<ImportResult> {
  return t.state.blockConcurrencyWhile(async () => {
    const live = await exported(t);
    if (expected !== undefined && expected !== live.etag)
      return failure("version_mismatch", `the configuration's ETag is ${live.etag}, not ${expected}`, {
        etag: live.etag,
      });
    const planned = await planImport(document, importContext(live, modeOf(t.env), t.policy().policy, t.sql));
    if (!planned.ok) return planned;
    const diff = diffConfig(live.document, document);
    const { decisions, ...versions } = t.state.storage.transactionSync(() => applyPlan(t.sql, planned.plan));
    const broken = brokenBindings(servingApps(t.sql), currentCatalog(t.sql).entries, t.live);
    t.changed();
    const changes = diff.policy.length + diff.catalog.length + diff.apps.length;
    t.audit("config_imported", { ...versions, changes, paths: changedPaths(diff), broken });
    // Each decision also as its own route's row (marked as the import's): the summary above lists
    // at most 50 paths, and what keys on app_approved or app_disabled must see an import's too.
    for (const { kind, detail } of decisions) t.audit(kind, detail);
    const now = await exported(t);
    return { ok: true as const, etag: now.etag, diff, broken };
  });
}

const exported = (t: ConfigContext) => exportConfig(t.sql, t.policy(), storedBindings(t.sql));

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
