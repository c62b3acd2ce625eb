import { CatalogDocument, type CatalogEntry } from "../../apps/catalog.ts";
import { subschemaProblems } from "../../apps/compat.ts";
import type { Functionality } from "../../apps/manifest.ts";
import type { ServingAppInfo } from "../../contracts.ts";
import { decode } from "../../decode.ts";
import { type Policy, sanitisedDestinations } from "../../policy/index.ts";
import { type Failure, failure } from "../../result.ts";
import type { Sql } from "../sql.ts";
import { sanitisedDestinationMessage } from "./policy-store.ts";

/** The tenant's catalog, versioned like its policy: every PUT is a new version; the newest applies. */

export const CATALOG_MIGRATIONS = [
  `CREATE TABLE catalogs (version INTEGER PRIMARY KEY, document TEXT NOT NULL, created_at TEXT NOT NULL)`,
];

export interface StoredCatalog {
  version: number;
  entries: CatalogEntry[];
}

export function currentCatalog(sql: Sql): StoredCatalog {
  const row = sql<{ version: number; document: string }>`
    SELECT version, document FROM catalogs ORDER BY version DESC LIMIT 1`[0];
  if (!row) return { version: 0, entries: [] };
  return {
    version: row.version,
    entries: decode(CatalogDocument, row.document, `catalog v${row.version}`).entries,
  };
}

/** The catalog's version in force, read without decoding it (0: none yet). */
export function catalogVersion(sql: Sql): number {
  return sql<{ v: number | null }>`SELECT MAX(version) AS v FROM catalogs`[0]?.v ?? 0;
}

/** Refused unless `expected` (when given) is the version in force: a write made against an older one. */
export function staleCatalog(sql: Sql, expected: number | undefined): Failure<"version_mismatch"> | null {
  const version = catalogVersion(sql);
  if (expected === undefined || expected === version) return null;
  return failure("version_mismatch", `the catalog is at version ${version}, not ${expected}`, { version });
}

/** Stores an already checked document as the next version. */
export function putCatalog(sql: Sql, doc: CatalogDocument): number {
  const version = currentCatalog(sql).version + 1;
  sql`INSERT INTO catalogs (version, document, created_at) VALUES (${version}, ${JSON.stringify(doc)}, ${new Date().toISOString()})`;
  return version;
}

/**
 * Entries whose request schema makes an argument a destination that the policy in force sanitises:
 * refused as a policy PUT pairing them is, since the sanitiser never vouches for a place.
 */
export function sanitisedDestinationProblems(
  doc: CatalogDocument,
  policy: Policy,
): Array<{ field: string; message: string }> {
  const index = new Map(doc.entries.map((e, i) => [e.name, i]));
  const schemas = new Map(doc.entries.map((e) => [e.name, e.request]));
  return sanitisedDestinations(policy, schemas).map(({ tool, arg }) => ({
    field: `body.entries.${index.get(tool)}.request`,
    message: `${sanitisedDestinationMessage(arg)} (the policy's tools.${tool}.args.${arg}.sanitise)`,
  }));
}

/**
 * Why `fn` cannot serve `entry`, as paths (empty: it can). The app must accept every request the
 * entry allows and guarantee every answer the entry promises; an irreversible functionality cannot
 * hide behind a reversible entry.
 */
export function bindingProblems(
  fn: Functionality,
  entry: CatalogEntry,
): Array<{ path: string; message: string }> {
  const problems = [
    ...subschemaProblems(entry.request, fn.request).map((p) => ({
      path: `request${p.path}`,
      message: p.message,
    })),
    ...subschemaProblems(fn.response, entry.response).map((p) => ({
      path: `response${p.path}`,
      message: p.message,
    })),
  ];
  if (fn.irreversible && !entry.irreversible) {
    problems.push({
      path: "irreversible",
      message: `${fn.name} cannot be undone, but ${entry.name} is reversible`,
    });
  }
  return problems;
}

/** Problems with an approval's bindings of `pending`'s functionalities to catalog entries, per field. */
export function bindingsProblems(
  pending: { manifest: { functionalities: Functionality[] } } | null,
  catalog: { entries: CatalogEntry[] },
  bindings: Record<string, string>,
): Array<{ field: string; message: string }> {
  if (!pending) return [];
  const entries = new Map(catalog.entries.map((e) => [e.name, e]));
  return Object.entries(bindings).flatMap(([fnName, entryName]) => {
    const field = `body.bindings.${fnName}`;
    const fn = pending.manifest.functionalities.find((f) => f.name === fnName);
    if (!fn) return [{ field, message: "not a functionality of this version" }];
    const entry = entries.get(entryName);
    if (!entry) return [{ field, message: `no catalog entry "${entryName}"` }];
    return bindingProblems(fn, entry).map((p) => ({ field, message: `${p.path}: ${p.message}` }));
  });
}

/** Bindings of serving apps that a catalog no longer lets hold. */
export type Broken = Array<{ app: string; functionality: string; entry: string }>;

export function brokenBindings(apps: ServingAppInfo[], catalog: CatalogEntry[], live: LiveBindings): Broken {
  const entries = new Map(catalog.map((e) => [e.name, e]));
  return apps.flatMap((app) =>
    Object.entries(app.bindings)
      .filter(([fn, entry]) => !live.holds(app, fn, entries.get(entry)))
      .map(([functionality, entry]) => ({ app: app.name, functionality, entry })),
  );
}

/** Whether a serving app's binding still holds: its entry exists and is compatible (memoised per entry text and version). */
export class LiveBindings {
  private readonly compatible = new Map<string, boolean>();

  holds(app: ServingAppInfo, fnName: string, entry: CatalogEntry | undefined): boolean {
    const fn = app.manifest.functionalities.find((f) => f.name === fnName);
    if (!entry || !fn) return false;
    const key = `${app.appId}:${app.version}:${fnName}:${JSON.stringify(entry)}`;
    let ok = this.compatible.get(key);
    if (ok === undefined) {
      ok = bindingProblems(fn, entry).length === 0;
      if (this.compatible.size > 2000) this.compatible.clear();
      this.compatible.set(key, ok);
    }
    return ok;
  }

  /** Each app with only its bindings that still hold against the catalog: what planning is shown. */
  only(apps: ServingAppInfo[], catalog: CatalogEntry[]): ServingAppInfo[] {
    const entries = new Map(catalog.map((e) => [e.name, e]));
    return apps.map((app) => ({
      ...app,
      bindings: Object.fromEntries(
        Object.entries(app.bindings).filter(([fn, entry]) => this.holds(app, fn, entries.get(entry))),
      ),
    }));
  }
}
