import { Manifest } from "../../apps/manifest.ts";
import type { ServingApp, ServingAppInfo } from "../../contracts.ts";
import { decode } from "../../decode.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { Sql } from "../sql.ts";
import {
  type AppRow,
  bindingsOf,
  confirmedOf,
  driftOf,
  PinsSchema,
  registryRevision,
  type VersionRow,
} from "./registry.ts";

/** What planners and spokes are served of the registry: each enabled app at its newest approved version. */

const now = () => new Date().toISOString();

type Secrets = { secret: string; previous_secret: string | null; previous_until: string | null };
/** An enabled app's row beside its newest approved version's. */
type ServingRow = AppRow &
  Secrets &
  Pick<VersionRow, "clearance" | "bindings" | "pins" | "manifest" | "confirmed_destinations"> & {
    version: number;
  };

/** Enabled apps with their newest approved version, in one statement (planning reads every app). */
function servingRows(sql: Sql): ServingRow[] {
  return sql<ServingRow>`
    SELECT a.*, v.version, v.clearance, v.bindings, v.pins, v.manifest, v.confirmed_destinations FROM apps a
    JOIN app_versions v ON v.app_id = a.id AND v.version =
      (SELECT MAX(version) FROM app_versions WHERE app_id = a.id AND status = 'approved')
    WHERE a.enabled = 1 ORDER BY a.name`;
}

/** A serving app as decoded once per registry revision; its secrets are worked out per call. */
export type HeldApp = { app: Omit<ServingApp, "secrets">; secrets: Secrets };
type Held = HeldApp;

/**
 * The serving apps, decoded, kept until the registry's revision moves (registry.ts makes every
 * write to its tables, and moves it with each): an app call then reads no statement and decodes
 * nothing (decoding a manifest on each call was a tenth of a tool step's CPU in `bench:profile`).
 * Only the secrets are worked out per call, since the old one's overlap ends with time. What it
 * returns is shared: callers must not mutate it.
 */
const servingSets = new WeakMap<Sql, { revision: number; apps: Held[] }>();

export function held(sql: Sql): Held[] {
  const revision = registryRevision(sql);
  const known = servingSets.get(sql);
  if (known?.revision === revision) return known.apps;
  const apps = servingRows(sql).map((row) => ({
    app: decoded(row),
    secrets: { secret: row.secret, previous_secret: row.previous_secret, previous_until: row.previous_until },
  }));
  servingSets.set(sql, { revision, apps });
  return apps;
}

function decoded(row: ServingRow): Omit<ServingApp, "secrets"> {
  return {
    appId: row.id,
    name: row.name,
    version: row.version,
    clearance: row.clearance!,
    manifest: decode(Manifest, row.manifest, "a stored manifest"),
    bindings: bindingsOf(row),
    confirmedDestinations: confirmedOf(row),
    pins: row.pins === null ? null : decode(PinsSchema, row.pins, "a version's tool pins"),
    drifted: driftOf(row) !== null,
  };
}

function withSecrets({ app, secrets: s }: Held): ServingApp {
  const overlap = s.previous_secret && s.previous_until && s.previous_until > now();
  return { ...app, secrets: [s.secret, ...(overlap ? [s.previous_secret!] : [])] };
}

export function servingApp(sql: Sql, appId: string): ServingApp | null {
  return servingIn(held(sql), appId);
}

/** The app among `apps` (pure: a replica of the tenant's state reads it the same way). */
export function servingIn(apps: readonly Held[], appId: string): ServingApp | null {
  const found = apps.find((h) => h.app.appId === appId);
  return found ? withSecrets(found) : null;
}

/** The serving version, if it may take a call of `functionality` for a plan verified against `version`. */
export function callableApp(
  apps: readonly Held[],
  appId: string,
  functionality: string,
  version: number | undefined,
):
  | Ok<{ app: ServingApp }>
  | Failure<"app_unavailable" | "tool_drift" | "app_changed" | "unknown_functionality"> {
  const app = servingIn(apps, appId);
  if (!app) return failure("app_unavailable", "the app is not approved or is disabled");
  if (app.drifted) {
    return failure(
      "tool_drift",
      "the app's MCP server changed its tools since approval; an admin must review the change",
    );
  }
  if (version !== undefined && version !== app.version) {
    return failure(
      "app_changed",
      `the app now serves version ${app.version}, not ${version}, which the plan was checked against`,
    );
  }
  if (!app.manifest.functionalities.some((f) => f.name === functionality)) {
    return failure("unknown_functionality", `no functionality ${functionality}`);
  }
  return { ok: true, app };
}

/** Every app a planner may use: approved, enabled, at its serving version. */
export function servingApps(sql: Sql): ServingAppInfo[] {
  return held(sql)
    .map((h) => h.app)
    .filter((app) => !app.drifted);
}

/**
 * One version of the owner's app as a spoke would call it, for the developer's try-it call: pending
 * or approved (a rejected one is not tried), with the app's signing secrets. Not a serving app: no
 * planner sees it and no real user's spoke is given it. null when the key does not own the app or
 * the version does not exist.
 */
export function triableApp(
  sql: Sql,
  ownerKeyId: string,
  appId: string,
  version: number,
): { app: ServingApp; status: string } | null {
  const row = sql<AppRow & Secrets & VersionRow>`
    SELECT a.*, v.* FROM apps a JOIN app_versions v ON v.app_id = a.id
    WHERE a.id = ${appId} AND a.owner_key_id = ${ownerKeyId} AND v.version = ${version}`[0];
  if (!row) return null;
  const held = {
    app: decoded({ ...row, id: appId, version, clearance: row.clearance ?? "" }),
    secrets: { secret: row.secret, previous_secret: row.previous_secret, previous_until: row.previous_until },
  };
  return { app: withSecrets(held), status: row.status };
}
