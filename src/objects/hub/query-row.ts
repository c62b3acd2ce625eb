import * as z from "zod";
import { decode } from "../../decode.ts";
import {
  type AppPicks,
  AppPicksSchema,
  QUERY_STATES,
  type QueryOptions,
  QueryOptionsSchema,
  type QueryStatus,
} from "../../runtime/index.ts";

/** A query's row in the hub's SQLite (store.ts), and how it reads back. */

/** A query row as stored; `plan`, `context` and `verdict` stay JSON text until the runtime loads them. */
export interface QueryRecord {
  id: string;
  seq: number;
  text: string;
  status: QueryStatus;
  idempotencyKey: string | null;
  options: QueryOptions;
  picks: AppPicks;
  plan: string | null;
  context: string | null;
  verdict: string | null;
  error: StoredError | null;
  /** The query span's trace context (traces.ts); null when tracing was off as it was admitted. */
  trace: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An error as stored and shown: written from the runtime's closed codes, read back as text. */
export type StoredError = z.infer<typeof ErrorSchema>;

export type QueryRow = {
  id: string;
  seq: number;
  text: string;
  status: string;
  idempotency_key: string | null;
  options: string;
  picks: string | null;
  plan: string | null;
  context: string | null;
  verdict: string | null;
  error: string | null;
  trace: string | null;
  created_at: string;
  updated_at: string;
};

const ErrorSchema = z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() });
const StatusSchema = z.enum(QUERY_STATES);

/**
 * Options only ever switch defences off (for control runs), so options that do not read back as
 * written fail safe to none: the query runs with every defence on rather than stopping the hub.
 */
function optionsOf(text: string): QueryOptions {
  try {
    return decode(QueryOptionsSchema, text, "a query's options");
  } catch {
    return {};
  }
}

/** Picks that do not read back as written fail safe to none: the user is asked instead. */
function picksOf(text: string | null): AppPicks {
  if (text === null) return {};
  try {
    return decode(AppPicksSchema, text, "a query's app picks");
  } catch {
    return {};
  }
}

export function toQuery(row: QueryRow): QueryRecord {
  return {
    id: row.id,
    seq: row.seq,
    text: row.text,
    status: StatusSchema.parse(row.status),
    idempotencyKey: row.idempotency_key,
    options: optionsOf(row.options),
    picks: picksOf(row.picks),
    plan: row.plan,
    context: row.context,
    verdict: row.verdict,
    error: row.error === null ? null : decode(ErrorSchema, row.error, "a query's error"),
    trace: row.trace ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
