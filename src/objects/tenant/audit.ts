import * as z from "zod";
import type { AuditType } from "../../audit-types.ts";
import { decode } from "../../decode.ts";
import type { AuditRow as ShippedRow } from "../audit-batch.ts";
import type { Sql } from "../sql.ts";

const Detail = z.record(z.string(), z.unknown());

/** The tenant's security event log (API.md: GET /v1/admin/audit). Append-only. */

export const AUDIT_MIGRATIONS = [
  `CREATE TABLE audit (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, type TEXT NOT NULL, detail TEXT NOT NULL)`,
];

export interface AuditEvent {
  seq: number;
  at: string;
  type: string;
  detail: Record<string, unknown>;
}

/** Details are capped so a hostile app cannot grow the log without bound through one event. */
const MAX_DETAIL_CHARS = 8_000;

/** Appends an event of the TenantDO's own, at the present time. */
export function appendAudit(
  sql: Sql,
  type: AuditType,
  detail: Record<string, unknown>,
  keepDays: () => number,
): void {
  appendAuditRows(sql, [{ at: new Date().toISOString(), type, detail }], keepDays);
}

/**
 * Appends a batch shipped from where its events happened (objects/audit-batch.ts), in its order,
 * each row keeping its event time; `seq` is the order of arrival, the log's one order. Every
 * `PRUNE_EVERY`th seq the batch passes, events older than `keepDays()` go.
 */
export function appendAuditRows(sql: Sql, rows: readonly ShippedRow[], keepDays: () => number): void {
  let prune = false;
  for (const { at, type, detail } of rows) {
    let text = JSON.stringify(detail ?? {});
    if (text.length > MAX_DETAIL_CHARS) text = JSON.stringify({ truncated: text.slice(0, MAX_DETAIL_CHARS) });
    // A time that is not one (a writer's bug) becomes the arrival time rather than a row out of reach.
    const when = typeof at === "string" && !Number.isNaN(Date.parse(at)) ? at : new Date().toISOString();
    const row = sql<{ seq: number }>`INSERT INTO audit (at, type, detail)
      VALUES (${when}, ${String(type)}, ${text}) RETURNING seq`[0];
    if (row && row.seq % PRUNE_EVERY === 0) prune = true;
  }
  if (prune) pruneAudit(sql, keepDays());
}

const PRUNE_EVERY = 100;

export function pruneAudit(sql: Sql, keepDays: number, now = Date.now()): void {
  sql`DELETE FROM audit WHERE at < ${new Date(now - keepDays * 86_400_000).toISOString()}`;
}

/** Which events to read: after a cursor oldest first, or newest first before a seq; `type` a substring. */
export type AuditQuery =
  | { order: "asc"; since: { seq: number } | { at: string }; type?: string }
  | { order: "desc"; before?: number; type?: string };

/** Events after a cursor (a sequence number, the last `seq` seen, or an ISO time), or newest first. */
export function readAudit(sql: Sql, q: AuditQuery, limit: number): AuditEvent[] {
  const type = q.type ?? "";
  let rows: AuditRow[];
  if (q.order === "desc") {
    // Newest first, so a busy tenant's latest events are one page away; `before` pages further back.
    const before = q.before ?? Number.MAX_SAFE_INTEGER;
    rows = sql<AuditRow>`SELECT * FROM audit WHERE seq < ${before}
      AND (${type} = '' OR instr(type, ${type}) > 0) ORDER BY seq DESC LIMIT ${limit}`;
  } else if ("seq" in q.since) {
    rows = sql<AuditRow>`SELECT * FROM audit WHERE seq > ${q.since.seq}
      AND (${type} = '' OR instr(type, ${type}) > 0) ORDER BY seq LIMIT ${limit}`;
  } else {
    rows = sql<AuditRow>`SELECT * FROM audit WHERE at > ${q.since.at}
      AND (${type} = '' OR instr(type, ${type}) > 0) ORDER BY seq LIMIT ${limit}`;
  }
  return rows.map((row) => ({
    ...row,
    detail: decode(Detail, row.detail, "an audit event"),
  }));
}

type AuditRow = { seq: number; at: string; type: string; detail: string };

// --- user data rights (#34) ---

/** Audit rows an export carries at most, oldest first; past it, `truncated`. */
export const EXPORT_MAX_AUDIT = 1_000;

/**
 * Whether a row is about the user: a `userId` (anywhere in it) naming them, or an API write to a
 * path under their user (an admin's write names no user otherwise).
 */
function about(detail: unknown, userId: string): boolean {
  if (Array.isArray(detail)) return detail.some((d) => about(d, userId));
  if (!detail || typeof detail !== "object") return false;
  for (const [key, value] of Object.entries(detail)) {
    if (key === "userId" && value === userId) return true;
    if (key === "path" && typeof value === "string" && userPath(value, userId)) return true;
    if (typeof value === "object" && about(value, userId)) return true;
  }
  return false;
}

const userPath = (path: string, userId: string) =>
  path === `/v1/users/${userId}` || path.startsWith(`/v1/users/${userId}/`);

/** The rows about the user, oldest first: a substring scan first (cheap), each row confirmed parsed. */
function rowsAbout(sql: Sql, userId: string): AuditRow[] {
  return sql<AuditRow>`SELECT * FROM audit WHERE instr(detail, ${JSON.stringify(userId)}) > 0
    OR instr(detail, ${`/v1/users/${userId}`}) > 0 ORDER BY seq`.filter((row) =>
    about(decode(Detail, row.detail, "an audit event"), userId),
  );
}

export function auditAbout(sql: Sql, userId: string): { events: AuditEvent[]; truncated: boolean } {
  const rows = rowsAbout(sql, userId);
  return {
    events: rows.slice(0, EXPORT_MAX_AUDIT).map((row) => ({
      ...row,
      detail: decode(Detail, row.detail, "an audit event"),
    })),
    truncated: rows.length > EXPORT_MAX_AUDIT,
  };
}

/**
 * The fields of an audit detail that say what happened, not what a user wrote or an app answered:
 * ids, kinds, decisions, scopes, statuses, codes, times, labels. An erasure keeps these and replaces
 * every other value (query text, artifact values, arguments, requests, reasons, subjects) with
 * `REDACTED`, at any depth: what is kept is listed, so a field added later is redacted by default.
 */
export const KEPT_AUDIT_FIELDS = new Set([
  "userId",
  "sessionId",
  "queryId",
  "consentId",
  "callId",
  "keyId",
  "appId",
  "appVersion",
  "version",
  "kind",
  "type",
  "decision",
  "scope",
  "status",
  "outcome",
  "code",
  "rule",
  "functionality",
  "tool",
  "stepKey",
  "role",
  "method",
  "path",
  "viaUserToken",
  "viaConsentLink",
  "expiresAt",
  "at",
  "quota",
  "limit",
  "label",
  "confidentiality",
  "integrity",
]);
export const REDACTED = "[redacted]";

export function scrub(value: unknown, kept = false): unknown {
  if (Array.isArray(value)) return value.map((v) => scrub(v, kept));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, KEPT_AUDIT_FIELDS.has(k))]));
  // Booleans and nulls carry no user's words (a decision's allow flag, an unset field).
  return kept || value === null || typeof value === "boolean" ? value : REDACTED;
}

/** Redacts the values of every row about the user, in place; kinds, times and order stay. How many changed. */
export function redactAbout(sql: Sql, userId: string): number {
  let changed = 0;
  // An erasure's own row carries counts and ids, no user's words: it stays whole.
  for (const row of rowsAbout(sql, userId).filter((r) => r.type !== "user_erased")) {
    const detail = JSON.stringify(scrub(decode(Detail, row.detail, "an audit event")));
    if (detail === row.detail) continue; // redacted already: a second erasure counts nothing
    sql`UPDATE audit SET detail = ${detail} WHERE seq = ${row.seq}`;
    changed++;
  }
  return changed;
}
