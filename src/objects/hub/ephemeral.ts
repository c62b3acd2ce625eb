import { randomId } from "../crypto.ts";
import type { Sql } from "../sql.ts";

/**
 * Per-session ephemeral ids (`fx_…`) for functionalities: what a spoke or its model ever sees of
 * another app. Only the hub holds the mapping, so an id reveals no app name and means nothing in
 * another session; a forged or stale id resolves to nothing.
 */
export const EPHEMERAL_MIGRATIONS = [
  `CREATE TABLE ephemeral (
     fx_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, functionality TEXT NOT NULL,
     UNIQUE (app_id, functionality))`,
];

export interface FunctionalityRef {
  appId: string;
  functionality: string;
}

export function ephemeralId(sql: Sql, ref: FunctionalityRef): string {
  const known = sql<{ fx_id: string }>`
    SELECT fx_id FROM ephemeral WHERE app_id = ${ref.appId} AND functionality = ${ref.functionality}`[0];
  if (known) return known.fx_id;
  const fxId = randomId("fx");
  sql`INSERT INTO ephemeral (fx_id, app_id, functionality) VALUES (${fxId}, ${ref.appId}, ${ref.functionality})`;
  return fxId;
}

export function resolveEphemeral(sql: Sql, fxId: string): FunctionalityRef | null {
  const row = sql<{ app_id: string; functionality: string }>`
    SELECT app_id, functionality FROM ephemeral WHERE fx_id = ${fxId}`[0];
  return row ? { appId: row.app_id, functionality: row.functionality } : null;
}
