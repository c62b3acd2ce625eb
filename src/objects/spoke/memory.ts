import * as z from "zod";
import type { SpokeCall } from "../../contracts.ts";
import { decode } from "../../decode.ts";
import type { Sql } from "../sql.ts";

/** An app's memory of one user, kept by its spoke: labeled, bounded, never read by a planner. */

/** Remembered requests and answers are whatever JSON the spoke stored. */
const Json = z.unknown();
const Levels = z.array(z.string());

/** How many recent interactions are looked at for an agent's memory. */
const MEMORY_SCAN = 100;
/** Interactions a spoke keeps per (user, app): memory is bounded, whatever the app is asked. */
const KEPT_INTERACTIONS = 500;
/** Kept in memory per interaction: enough for the app's context later, bounded against hostile sizes. */
const MAX_REMEMBERED_CHARS = 64 * 1024;

/**
 * The app's memory of this user, newest first (for an agentic app's context; never for planners):
 * only interactions whose every level is in `mayRead` (null: all, the control), newest `limit`
 * of the last `MEMORY_SCAN`.
 */
export function readMemory(
  sql: Sql,
  limit = 20,
  mayRead: readonly string[] | null = null,
): Array<{
  functionality: string;
  request: unknown;
  response: unknown;
  at: string;
  levels: string[] | null;
}> {
  type Row = {
    functionality: string;
    request: string;
    response: string;
    at: string;
    levels: string | null;
  };
  const rows = sql<Row>`
    SELECT functionality, request, response, at, levels FROM interactions
    WHERE outcome = 'ok' ORDER BY seq DESC LIMIT ${MEMORY_SCAN}`;
  return rows
    .map((row) => ({
      functionality: row.functionality,
      request: decode(Json, row.request, "a remembered request"),
      response: decode(Json, row.response, "a remembered answer"),
      at: row.at,
      levels: row.levels === null ? null : decode(Levels, row.levels, "a remembered label"),
    }))
    .filter((r) => mayRead === null || r.levels?.every((c) => mayRead.includes(c)) === true)
    .slice(0, limit);
}

/** Keeps an interaction with the levels it holds: the call's own, and what an agent read besides. */
export function rememberInteraction(
  sql: Sql,
  call: SpokeCall,
  response: unknown,
  outcome: string,
  read: string[] = [],
): void {
  if (call.remember === false) return;
  const bounded = (value: unknown) => {
    const text = JSON.stringify(value);
    return text.length <= MAX_REMEMBERED_CHARS ? text : JSON.stringify({ omitted: "too large to remember" });
  };
  const answer = response === null ? null : bounded(response);
  // A call the hub gave no label is remembered unlabeled: never given to an agent later.
  const levels = call.memory ? JSON.stringify([...new Set([call.memory.carries, ...read])]) : null;
  sql`INSERT INTO interactions (call_id, functionality, request, response, outcome, at, levels)
           VALUES (${call.callId}, ${call.functionality}, ${bounded(call.request)}, ${answer}, ${outcome},
                   ${new Date().toISOString()}, ${levels})`;
  // Retention: the newest interactions only (an agent reads ten of the last hundred).
  sql`DELETE FROM interactions WHERE seq <= (SELECT MAX(seq) FROM interactions) - ${KEPT_INTERACTIONS}`;
}
