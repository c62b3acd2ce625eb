import * as z from "zod";
import {
  ConfirmedDestinations,
  type DestinationsView,
  destinationsView,
} from "../../apps/destination-review.ts";
import { Manifest } from "../../apps/manifest.ts";
import { decode } from "../../decode.ts";
import { type ToolChange, toolChanges, withEffects } from "../../mcp/definitions.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import { randomId, randomToken } from "../crypto.ts";
import type { Sql } from "../sql.ts";

/** The app registry of one tenant: apps, their versions and review state. Called by TenantDO only. */

export const REGISTRY_MIGRATIONS = [
  `CREATE TABLE apps (
     id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, owner_key_id TEXT NOT NULL, secret TEXT NOT NULL,
     enabled INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL)`,
  `CREATE TABLE app_versions (
     app_id TEXT NOT NULL, version INTEGER NOT NULL, manifest TEXT NOT NULL, status TEXT NOT NULL,
     reason TEXT, clearance TEXT, submitted_at TEXT NOT NULL, reviewed_at TEXT,
     PRIMARY KEY (app_id, version))`,
  // Functionality name → catalog entry, set when the version is approved.
  `ALTER TABLE app_versions ADD COLUMN bindings TEXT`,
  // A rotated-out secret stays valid (Lattice signs with both) until previous_until.
  `ALTER TABLE apps ADD COLUMN previous_secret TEXT`,
  `ALTER TABLE apps ADD COLUMN previous_until TEXT`,
  // An MCP version's digest of each tool definition (JSON), set at approval.
  `ALTER TABLE app_versions ADD COLUMN pins TEXT`,
  // Set when the server's tools no longer match the serving version's pins: calls stop until review.
  `ALTER TABLE apps ADD COLUMN drift TEXT`,
  // The destination lists the admin confirmed at approval (JSON ConfirmedDestinations).
  `ALTER TABLE app_versions ADD COLUMN confirmed_destinations TEXT`,
];

/** What a spoke saw when the server's tools stopped matching the pins of the serving version. */
export interface Drift {
  version: number;
  at: string;
  changes: ToolChange[];
  /** The pending version holding the server's new definitions, when they could be imported. */
  pending: number | null;
}
const DriftSchema = z.object({
  version: z.number(),
  at: z.string(),
  changes: z.array(
    z.object({
      tool: z.string(),
      change: z.enum(["added", "removed", "changed"]),
      fields: z.array(z.string()).optional(),
      effects: z.array(z.string()).optional(),
    }),
  ),
  pending: z.number().nullable(),
});
export const PinsSchema = z.record(z.string(), z.string());

/** How long a rotated-out signing secret stays valid beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** Functionality name → the catalog entry it serves (unbound functionalities are absent). */
export type Bindings = Record<string, string>;
const BindingsSchema = z.record(z.string(), z.string());

/** An admin's approval: clearance, bindings to catalog entries, confirmed destination lists. */
export type Approval = {
  approve: true;
  clearance: string;
  bindings?: Bindings;
  destinations?: ConfirmedDestinations;
};

export const REVIEW_STATES = ["pending", "approved", "rejected"] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];
const ReviewStatus = z.enum(REVIEW_STATES);

export interface AppVersion {
  version: number;
  label: string;
  status: ReviewState;
  reason: string | null;
  clearance: string | null;
  submittedAt: string;
  reviewedAt: string | null;
  manifest: Manifest;
  /** Set at approval: which catalog entry each functionality serves. */
  bindings: Bindings;
  /** Per functionality and agent tool: declared, inferred and (at approval) confirmed destinations. */
  destinations: DestinationsView;
  /** An MCP version: how its tools differ from the version serving before it (the review's diff). */
  toolChanges?: ToolChange[];
}

export interface AppView {
  id: string;
  name: string;
  enabled: boolean;
  createdAt: string;
  /** The version planners see and spokes call: the newest approved one, while enabled. */
  serving: number | null;
  /** An MCP app whose server changed its tools after approval: not planned, not called. */
  drift: Drift | null;
  versions: AppVersion[];
}

export type AppRow = {
  id: string;
  name: string;
  owner_key_id: string;
  enabled: number;
  created_at: string;
  drift: string | null;
};
export type VersionRow = {
  version: number;
  manifest: string;
  status: string;
  reason: string | null;
  clearance: string | null;
  submitted_at: string;
  reviewed_at: string | null;
  bindings: string | null;
  pins: string | null;
  confirmed_destinations: string | null;
};

const now = () => new Date().toISOString();

/**
 * Moves on every write to the registry's tables, all of which are made in this file: serving.ts
 * keeps what it read until it moves. Per tenant object (keyed by its own `sql`).
 */
const revisions = new WeakMap<Sql, number>();
export const registryRevision = (sql: Sql): number => revisions.get(sql) ?? 0;
export function registryChanged(sql: Sql): void {
  revisions.set(sql, registryRevision(sql) + 1);
}

export function registerApp(
  sql: Sql,
  ownerKeyId: string,
  manifest: Manifest,
  /** Chosen before registration when the import needed it (an OAuth client's callback URL names it). */
  chosenId?: string,
): Ok<{ app: AppView; secret: string }> | Failure<"name_taken"> {
  if (sql`SELECT id FROM apps WHERE name = ${manifest.name}`.length) {
    return failure("name_taken", `an app named "${manifest.name}" already exists in this tenant`);
  }
  const id = chosenId && !sql`SELECT id FROM apps WHERE id = ${chosenId}`.length ? chosenId : randomId("app");
  const secret = `whsec_${randomToken(32)}`;
  sql`INSERT INTO apps (id, name, owner_key_id, secret, created_at)
      VALUES (${id}, ${manifest.name}, ${ownerKeyId}, ${secret}, ${now()})`;
  insertVersion(sql, id, 1, manifest); // moves the revision for both writes
  return { ok: true, app: viewApp(sql, id)!, secret };
}

export function submitVersion(
  sql: Sql,
  ownerKeyId: string,
  appId: string,
  manifest: Manifest,
): Ok<{ app: AppView }> | Failure<"not_found" | "name_change"> {
  const app = ownedApp(sql, ownerKeyId, appId);
  if (!app) return failure("not_found", "no such app");
  if (app.name !== manifest.name) return failure("name_change", "an app's name cannot change");
  const last =
    sql<{ v: number }>`SELECT MAX(version) AS v FROM app_versions WHERE app_id = ${appId}`[0]?.v ?? 0;
  insertVersion(sql, appId, last + 1, manifest);
  return { ok: true, app: viewApp(sql, appId)! };
}

export function ownedApp(sql: Sql, ownerKeyId: string, appId: string): AppView | null {
  const row = sql<{
    id: string;
  }>`SELECT id FROM apps WHERE id = ${appId} AND owner_key_id = ${ownerKeyId}`[0];
  return row ? viewApp(sql, row.id) : null;
}

/** Whether the tenant ever registered this app (any version, serving or not). */
export function hasApp(sql: Sql, appId: string): boolean {
  return sql<{ id: string }>`SELECT id FROM apps WHERE id = ${appId}`.length > 0;
}

/** The apps a developer key registered, by name. */
export function ownedApps(sql: Sql, ownerKeyId: string): AppView[] {
  return sql<{ id: string }>`SELECT id FROM apps WHERE owner_key_id = ${ownerKeyId} ORDER BY name`.map(
    ({ id }) => viewApp(sql, id)!,
  );
}

export function listApps(sql: Sql, status?: ReviewState): AppView[] {
  const ids = status
    ? sql<{ id: string }>`SELECT DISTINCT a.id FROM apps a JOIN app_versions v ON v.app_id = a.id
                          WHERE v.status = ${status} ORDER BY a.name`
    : sql<{ id: string }>`SELECT id FROM apps ORDER BY name`;
  return ids.map(({ id }) => {
    const app = viewApp(sql, id)!;
    return status ? { ...app, versions: app.versions.filter((v) => v.status === status) } : app;
  });
}

export function review(
  sql: Sql,
  appId: string,
  version: number,
  decision: (Approval & { pins: Record<string, string> | null }) | { approve: false; reason: string },
): Ok<{ app: AppView }> | Failure<"not_found" | "not_pending"> {
  const row = sql<{
    status: string;
  }>`SELECT status FROM app_versions WHERE app_id = ${appId} AND version = ${version}`[0];
  if (!row) return failure("not_found", "no such app version");
  if (row.status !== "pending") return failure("not_pending", `this version is already ${row.status}`);
  if (decision.approve) {
    sql`UPDATE app_versions SET status = 'approved', clearance = ${decision.clearance},
        bindings = ${JSON.stringify(decision.bindings ?? {})}, reviewed_at = ${now()},
        pins = ${decision.pins && JSON.stringify(decision.pins)},
        confirmed_destinations = ${decision.destinations ? JSON.stringify(decision.destinations) : null}
        WHERE app_id = ${appId} AND version = ${version}`;
    // A reviewed newer version ends a drift: the admin has seen the server's new tools.
    sql`UPDATE apps SET drift = NULL WHERE id = ${appId} AND drift IS NOT NULL
        AND json_extract(drift, '$.version') < ${version}`;
  } else {
    sql`UPDATE app_versions SET status = 'rejected', reason = ${decision.reason}, reviewed_at = ${now()}
        WHERE app_id = ${appId} AND version = ${version}`;
  }
  registryChanged(sql);
  return { ok: true, app: viewApp(sql, appId)! };
}

export function setEnabled(sql: Sql, appId: string, enabled: boolean): AppView | null {
  sql`UPDATE apps SET enabled = ${enabled ? 1 : 0} WHERE id = ${appId}`;
  registryChanged(sql);
  return viewApp(sql, appId);
}

/**
 * A new signing secret for the owner's app; the old one stays valid for `ROTATION_OVERLAP_MS`, or
 * not at all when `immediate` (a leaked secret).
 */
export function rotateSecret(
  sql: Sql,
  ownerKeyId: string,
  appId: string,
  immediate = false,
): { secret: string; previousValidUntil: string } | null {
  const app = sql<{
    secret: string;
  }>`SELECT secret FROM apps WHERE id = ${appId} AND owner_key_id = ${ownerKeyId}`[0];
  if (!app) return null;
  const secret = `whsec_${randomToken(32)}`;
  const until = new Date(Date.now() + (immediate ? 0 : ROTATION_OVERLAP_MS)).toISOString();
  sql`UPDATE apps SET secret = ${secret}, previous_secret = ${app.secret}, previous_until = ${until} WHERE id = ${appId}`;
  registryChanged(sql);
  return { secret, previousValidUntil: until };
}

export function bindingsOf(v: Pick<VersionRow, "bindings">): Bindings {
  return v.bindings === null ? {} : decode(BindingsSchema, v.bindings, "an app version's bindings");
}

export function confirmedOf(v: Pick<VersionRow, "confirmed_destinations">): ConfirmedDestinations {
  return v.confirmed_destinations === null
    ? {}
    : decode(ConfirmedDestinations, v.confirmed_destinations, "an app version's confirmed destinations");
}

/**
 * Records that the server behind an app's serving version lists other tools than were pinned: calls
 * stop (the app drops out of planning too) and, once per distinct list, a pending version holds the
 * new definitions for review. `next` is that version's manifest, null when it could not be imported.
 */
export function recordDrift(
  sql: Sql,
  appId: string,
  version: number,
  changes: ToolChange[],
  next: Manifest | null,
): Drift | null {
  const app = sql<AppRow>`SELECT * FROM apps WHERE id = ${appId}`[0];
  if (!app) return null;
  const known = driftOf(app);
  if (known && known.version === version && sameChanges(known.changes, changes)) return null;
  let pending: number | null = null;
  if (next) {
    const last =
      sql<{ v: number }>`SELECT MAX(version) AS v FROM app_versions WHERE app_id = ${appId}`[0]?.v ?? 0;
    pending = last + 1;
    insertVersion(sql, appId, pending, next);
  }
  const drift: Drift = { version, at: now(), changes, pending };
  sql`UPDATE apps SET drift = ${JSON.stringify(drift)} WHERE id = ${appId}`;
  registryChanged(sql);
  return drift;
}

const sameChanges = (a: ToolChange[], b: ToolChange[]) => JSON.stringify(a) === JSON.stringify(b);

export function driftOf(app: AppRow): Drift | null {
  return app.drift === null ? null : decode(DriftSchema, app.drift, "an app's drift");
}

/** A version as stored, with whether it is the app's newest approved one (the one that serves). */
export function storedVersion(
  sql: Sql,
  appId: string,
  version: number,
): { name: string; manifest: Manifest; bindings: Bindings; status: string; newestApproved: boolean } | null {
  const v = sql<VersionRow & { name: string; newest: number | null }>`
    SELECT v.*, a.name,
      (SELECT MAX(version) FROM app_versions WHERE app_id = a.id AND status = 'approved') AS newest
    FROM app_versions v JOIN apps a ON a.id = v.app_id WHERE v.app_id = ${appId} AND v.version = ${version}`[0];
  if (!v) return null;
  return {
    name: v.name,
    manifest: decode(Manifest, v.manifest, "a stored manifest"),
    bindings: bindingsOf(v),
    status: v.status,
    newestApproved: v.status === "approved" && v.newest === v.version,
  };
}

/** Replaces an approved version's bindings whole (already checked against the catalog by the caller). */
export function setBindings(sql: Sql, appId: string, version: number, bindings: Bindings): AppView | null {
  sql`UPDATE app_versions SET bindings = ${JSON.stringify(bindings)}
      WHERE app_id = ${appId} AND version = ${version} AND status = 'approved'`;
  registryChanged(sql);
  return viewApp(sql, appId);
}

/** One pending version, for review. */
export function pendingVersion(sql: Sql, appId: string, version: number): { manifest: Manifest } | null {
  const v = sql<VersionRow>`SELECT * FROM app_versions WHERE app_id = ${appId} AND version = ${version}`[0];
  return v ? { manifest: decode(Manifest, v.manifest, "a stored manifest") } : null;
}

function insertVersion(sql: Sql, appId: string, version: number, manifest: Manifest): void {
  sql`INSERT INTO app_versions (app_id, version, manifest, status, submitted_at)
      VALUES (${appId}, ${version}, ${JSON.stringify(manifest)}, 'pending', ${now()})`;
  registryChanged(sql);
}

/** An MCP version beside the newest approved version before it: what the admin reviews. */
function withToolChanges(v: AppVersion, all: AppVersion[]): AppVersion {
  const mine = v.manifest.mcp?.definitions;
  if (!mine) return v;
  const before = all.filter((o) => o.version < v.version && o.status === "approved").at(-1);
  const theirs = before?.manifest.mcp?.definitions;
  if (!before || !theirs) return v;
  const changes = toolChanges(theirs, mine);
  return {
    ...v,
    toolChanges: withEffects(changes, before.manifest.functionalities, v.manifest.functionalities),
  };
}

function viewApp(sql: Sql, appId: string): AppView | null {
  const app = sql<AppRow>`SELECT * FROM apps WHERE id = ${appId}`[0];
  if (!app) return null;
  const versions = sql<VersionRow>`SELECT * FROM app_versions WHERE app_id = ${appId} ORDER BY version`.map(
    (v): AppVersion => {
      const manifest = decode(Manifest, v.manifest, "a stored manifest");
      return {
        version: v.version,
        label: manifest.version,
        status: ReviewStatus.parse(v.status),
        reason: v.reason,
        clearance: v.clearance,
        submittedAt: v.submitted_at,
        reviewedAt: v.reviewed_at,
        manifest,
        bindings: bindingsOf(v),
        destinations: destinationsView(manifest, confirmedOf(v)),
      };
    },
  );
  const approved = versions.filter((v) => v.status === "approved").map((v) => v.version);
  const serving = app.enabled && approved.length ? Math.max(...approved) : null;
  return {
    id: app.id,
    name: app.name,
    enabled: app.enabled === 1,
    createdAt: app.created_at,
    serving,
    drift: driftOf(app),
    versions: versions.map((v) => withToolChanges(v, versions)),
  };
}
