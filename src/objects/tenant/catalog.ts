import { type CatalogDocument, catalogProblems } from "../../apps/catalog.ts";
import type { FieldProblem } from "../../apps/check.ts";
import type { AuditType } from "../../audit-types.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { Sql } from "../sql.ts";
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
  currentCatalog,
  type LiveBindings,
  putCatalog,
  sanitisedDestinationProblems,
  staleCatalog,
} from "./catalog-store.ts";
import type { StoredPolicy } from "./policy-store.ts";
import * as registry from "./registry.ts";
import { servingApps } from "./serving.ts";

/** What the catalog's admin surface needs of its tenant (TenantDO). */
export interface CatalogContext {
  sql: Sql;
  /** The policy in force (PolicyCache). */
  policy: () => StoredPolicy;
  live: LiveBindings;
  /** A write to what replicas hold (TenantDO.changed). */
  changed: () => void;
  audit: (type: AuditType, detail: Record<string, unknown>) => void;
}

export type CatalogWrite = Ok<{ version: number; broken: Broken }>;

/**
 * Replaces the catalog whole. Bindings of serving apps that no longer hold are listed: they stop
 * serving their entry until the app's next version is bound again. With `expected`, only while
 * that version is in force: two admins never overwrite each other's change unseen.
 */
export function replaceCatalog(
  t: CatalogContext,
  doc: CatalogDocument,
  expected?: number,
): CatalogWrite | Failure<"invalid_catalog" | "version_mismatch"> {
  const stale = staleCatalog(t.sql, expected);
  if (stale) return stale;
  const { policy } = t.policy();
  const problems = [...catalogProblems(doc, policy.lattices), ...sanitisedDestinationProblems(doc, policy)];
  if (problems.length) return failure("invalid_catalog", "catalog refused", problems);
  const version = putCatalog(t.sql, doc);
  const broken = brokenBindings(servingApps(t.sql), doc.entries, t.live);
  t.changed();
  t.audit("catalog_updated", { version, broken });
  return { ok: true, version, broken };
}

/** One entry created, replaced or deleted (catalog-entries.ts): a new version, checked as replaceCatalog. */
export function editCatalog(
  t: CatalogContext,
  edit: CatalogEdit,
  expected?: number,
): CatalogWrite | EditFailure {
  const stale = staleCatalog(t.sql, expected);
  if (stale) return stale;
  const applied = applyEdit(currentCatalog(t.sql).entries, edit);
  if (!applied.ok) return applied;
  const result = replaceCatalog(t, applied.doc);
  if (result.ok || result.code !== "invalid_catalog") return result;
  const named = entryProblems(result.details as FieldProblem[], applied.doc, applied.at);
  return failure("invalid_catalog", "catalog entry refused", named);
}

/** The catalog's entries with the serving apps bound to each, filtered (catalog-entries.ts). */
export function catalogEntries(t: CatalogContext, filter: EntryFilter) {
  const catalog = currentCatalog(t.sql);
  return {
    version: catalog.version,
    entries: listEntries(catalog, servingApps(t.sql), t.live, filter),
  };
}

/**
 * An approved version's bindings replaced whole, without a new version from its developer: only
 * the newest approved version's (the one serving), each checked as at approval.
 */
export function bindApp(
  t: CatalogContext,
  appId: string,
  version: number,
  bindings: registry.Bindings,
): Ok<{ app: registry.AppView }> | Failure<"not_found" | "not_serving" | "invalid_binding"> {
  const stored = registry.storedVersion(t.sql, appId, version);
  if (!stored) return failure("not_found", "no such app version");
  if (!stored.newestApproved)
    return failure("not_serving", "only the newest approved version's bindings can change");
  const problems = bindingsProblems(stored, currentCatalog(t.sql), bindings);
  if (problems.length) return failure("invalid_binding", "a binding does not hold", problems);
  const app = registry.setBindings(t.sql, appId, version, bindings)!;
  t.changed();
  t.audit("app_bindings_changed", { appId, version, before: stored.bindings, bindings });
  return { ok: true, app };
}

/** For each functionality of a version that no binding serves, an entry to start from (no app text). */
export function catalogProposals(sql: Sql, appId: string, version: number) {
  const stored = registry.storedVersion(sql, appId, version);
  return stored && proposals(stored.name, stored, currentCatalog(sql));
}
