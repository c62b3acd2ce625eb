import type { CatalogDocument, CatalogEntry } from "../../apps/catalog.ts";
import { type Proposal, proposeEntry } from "../../apps/catalog-proposal.ts";
import type { FieldProblem } from "../../apps/check.ts";
import type { Manifest } from "../../apps/manifest.ts";
import type { ServingAppInfo } from "../../contracts.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import { bindingProblems, type LiveBindings, type StoredCatalog } from "./catalog-store.ts";

/**
 * One entry of the catalog created, replaced or deleted: the catalog that results is checked and
 * stored exactly as a whole-catalog PUT is (TenantDO.putCatalog), as a new version.
 */
export type CatalogEdit =
  | { op: "create"; entry: CatalogEntry }
  | { op: "replace"; name: string; entry: CatalogEntry }
  | { op: "delete"; name: string };

export type EditFailure = Failure<"not_found" | "name_taken" | "version_mismatch" | "invalid_catalog">;

/** The whole document after `edit`, and where the edited entry stands in it (null: deleted). */
export function applyEdit(
  entries: CatalogEntry[],
  edit: CatalogEdit,
): Ok<{ doc: CatalogDocument; at: number | null }> | EditFailure {
  const index = entries.findIndex((e) => e.name === (edit.op === "create" ? edit.entry.name : edit.name));
  if (edit.op === "create") {
    if (index >= 0) return failure("name_taken", `an entry named "${edit.entry.name}" already exists`);
    return { ok: true, doc: { entries: [...entries, edit.entry] }, at: entries.length };
  }
  if (index < 0) return failure("not_found", `no catalog entry "${edit.name}"`);
  if (edit.op === "delete") return { ok: true, doc: { entries: entries.toSpliced(index, 1) }, at: null };
  if (edit.entry.name !== edit.name) {
    const problem = { field: "body.name", message: `must be the path's name, "${edit.name}"` };
    return failure("invalid_catalog", "catalog entry refused", [problem]);
  }
  return { ok: true, doc: { entries: entries.toSpliced(index, 1, edit.entry) }, at: index };
}

/**
 * The whole-document problems as the per-entry routes name them: the edited entry's fields are the
 * body's (`body.entries.3.request` → `body.request`); another entry's keep its name
 * (`entries.mail.send.request`), though a change to one entry should leave the others as they were.
 */
export function entryProblems(
  problems: FieldProblem[],
  doc: CatalogDocument,
  at: number | null,
): FieldProblem[] {
  return problems.map(({ field, message }) => {
    const match = /^body\.entries\.(\d+)(\.(.*))?$/.exec(field);
    if (!match) return { field, message };
    const i = Number(match[1]);
    const rest = match[3];
    if (i === at) return { field: rest ? `body.${rest}` : "body", message };
    const name = doc.entries[i]?.name ?? String(i);
    return { field: rest ? `entries.${name}.${rest}` : `entries.${name}`, message };
  });
}

/** What the entries list filters on; every filter given must hold. */
export interface EntryFilter {
  /** Served by a binding of a serving app that holds (true), or by none (false). */
  bound?: boolean;
  /** Served by a binding of this serving app (by name) that holds. */
  app?: string;
  /** The name starts with this. */
  q?: string;
}

/** An entry with the serving apps whose bindings to it hold: what an admin lists. */
export type ListedEntry = CatalogEntry & { boundBy: Array<{ app: string; functionality: string }> };

export function listEntries(
  catalog: StoredCatalog,
  apps: ServingAppInfo[],
  live: LiveBindings,
  filter: EntryFilter,
): ListedEntry[] {
  const held = live.only(apps, catalog.entries);
  return catalog.entries
    .map((entry) => ({
      ...entry,
      boundBy: held.flatMap((app) =>
        Object.entries(app.bindings)
          .filter(([, name]) => name === entry.name)
          .map(([functionality]) => ({ app: app.name, functionality })),
      ),
    }))
    .filter(
      (e) =>
        (filter.bound === undefined || filter.bound === e.boundBy.length > 0) &&
        (filter.app === undefined || e.boundBy.some((b) => b.app === filter.app)) &&
        (filter.q === undefined || e.name.startsWith(filter.q)),
    );
}

/**
 * A proposed entry for each functionality of the version that its bindings leave unbound, with the
 * existing entries it could serve as they stand (catalog-proposal.ts: no app text in it).
 */
export function proposals(
  app: string,
  version: { manifest: Manifest; bindings: Record<string, string> },
  catalog: StoredCatalog,
): Proposal[] {
  const taken = new Set(catalog.entries.map((e) => e.name));
  return version.manifest.functionalities
    .filter((fn) => !(fn.name in version.bindings))
    .map((fn) => {
      const entry = proposeEntry(app, fn, taken);
      taken.add(entry.name); // two proposals of one version never share a name
      const fits = catalog.entries.filter((e) => bindingProblems(fn, e).length === 0).map((e) => e.name);
      return { functionality: fn.name, entry, fits };
    });
}
