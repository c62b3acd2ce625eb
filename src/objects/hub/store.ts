import * as z from "zod";
import { decode } from "../../decode.ts";
import {
  type AppPicks,
  type DisplayItem,
  type HubEvent,
  type HubEventData,
  type HubEventType,
  HubEventTypeSchema,
  type JournalEntry,
  LabelSchema,
  ProvenanceSchema,
  type QueryFields,
  type QueryOptions,
  type Transition,
} from "../../runtime/index.ts";
import type { Sql } from "../sql.ts";
import type { ConsentStore } from "./consents.ts";
import { type QueryRecord, type QueryRow, toQuery } from "./query-row.ts";

export type { QueryRecord, StoredError } from "./query-row.ts";

/**
 * The HubDO's durable state. Everything a resume needs is here: the query, its plan and the context
 * it was verified against, and a journal of every effect (tool call, q-llm call, retrieve, display)
 * keyed by its position in the plan, so a replay after eviction re-derives the same state.
 */
export const STORE_MIGRATIONS = [
  `CREATE TABLE session (
     id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, private INTEGER NOT NULL,
     created_at TEXT NOT NULL)`,
  `CREATE TABLE queries (
     id TEXT PRIMARY KEY, seq INTEGER NOT NULL, text TEXT NOT NULL, status TEXT NOT NULL,
     idempotency_key TEXT UNIQUE, options TEXT NOT NULL, plan TEXT, context TEXT, verdict TEXT, error TEXT,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
  `CREATE TABLE journal (
     query_id TEXT NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
     value TEXT, label TEXT, info TEXT, PRIMARY KEY (query_id, key))`,
  `CREATE TABLE display (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, query_id TEXT NOT NULL, key TEXT NOT NULL, title TEXT,
     value TEXT, label TEXT NOT NULL, redacted INTEGER NOT NULL, untrusted INTEGER NOT NULL,
     UNIQUE (query_id, key))`,
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, query_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
     at TEXT NOT NULL)`,
  // Where each display item's value came from (the query, the planner, an app, a model).
  `ALTER TABLE display ADD COLUMN provenance TEXT`,
  // The user's roles, as the frontend named them when it opened the session.
  `ALTER TABLE session ADD COLUMN roles TEXT`,
  // A query's view reads its own events: without this, each read scanned the session's.
  `CREATE INDEX events_by_query ON events (query_id, seq)`,
  // The apps the frontend picked for the query (the request's `apps`).
  `ALTER TABLE queries ADD COLUMN picks TEXT`,
  // The query span's trace context (traces.ts), so every later advance continues the same trace.
  `ALTER TABLE queries ADD COLUMN trace TEXT`,
];

const Roles = z.array(z.string());

export interface Session {
  id: string;
  tenantId: string;
  userId: string;
  private: boolean;
  /** The roles the frontend named (the tenant's default roles apply when empty). */
  roles: string[];
  createdAt: string;
}

/** Who acts in a session for one user only (a user token): that user and the roles it grants. */
export interface Caller {
  userId: string;
  roles: readonly string[];
}

/**
 * Whether a caller may use the session (null: a tenant-wide key, which may): it must be the session's
 * user and hold every role the session was opened with, for every use, not only the opening.
 */
export function mayUse(session: Session, caller: Caller | null): boolean {
  return (
    caller === null ||
    (caller.userId === session.userId && session.roles.every((r) => caller.roles.includes(r)))
  );
}

const Json = z.unknown();
const JournalState = z.enum(["started", "done"]);
const Info = z.record(z.string(), z.unknown());

const now = () => new Date().toISOString();

export class HubStore {
  private readonly sql: Sql;
  /**
   * Told of each event once it is written (the hub pushes it to open streams). Lazily: an emit with
   * no stream listening pays no decode.
   */
  private readonly written: (event: () => HubEvent) => void;
  private readonly consents: Pick<ConsentStore, "forgetValues">;
  private readonly transaction: <T>(work: () => T) => T;

  constructor(
    sql: Sql,
    more: {
      written?: (event: () => HubEvent) => void;
      consents: Pick<ConsentStore, "forgetValues">;
      /** The storage's transactionSync: a transition is written whole or not at all. */
      transaction: <T>(work: () => T) => T;
    },
  ) {
    this.sql = sql;
    this.written = more.written ?? (() => {});
    this.consents = more.consents;
    this.transaction = more.transaction;
  }

  /** The session row, once read: it is written once (INSERT OR IGNORE) and never changed or deleted. */
  private opened: Session | null = null;

  /** Forgets the session read (the session was erased: the next read finds none). */
  forgetSession(): void {
    this.opened = null;
  }

  session(): Session | null {
    this.opened ??= this.readSession();
    return this.opened;
  }

  private readSession(): Session | null {
    const row = this.sql<{
      id: string;
      tenant_id: string;
      user_id: string;
      private: number;
      roles: string | null;
      created_at: string;
    }>`
      SELECT * FROM session`[0];
    return row
      ? {
          id: row.id,
          tenantId: row.tenant_id,
          userId: row.user_id,
          private: row.private === 1,
          roles: row.roles === null ? [] : decode(Roles, row.roles, "the session's roles"),
          createdAt: row.created_at,
        }
      : null;
  }

  openSession(s: Omit<Session, "createdAt" | "roles"> & { roles?: string[] }): Session {
    this.sql`INSERT OR IGNORE INTO session (id, tenant_id, user_id, private, created_at, roles)
             VALUES (${s.id}, ${s.tenantId}, ${s.userId}, ${s.private ? 1 : 0}, ${now()}, ${JSON.stringify(s.roles ?? [])})`;
    return this.session()!;
  }

  query(id: string): QueryRecord | null {
    const row = this.sql<QueryRow>`SELECT * FROM queries WHERE id = ${id}`[0];
    return row ? toQuery(row) : null;
  }

  queryByIdempotencyKey(key: string): QueryRecord | null {
    const row = this.sql<QueryRow>`SELECT * FROM queries WHERE idempotency_key = ${key}`[0];
    return row ? toQuery(row) : null;
  }

  /** The texts of the session's queries before `seq`: the planner's memory of the conversation. */
  earlierTexts(seq: number): string[] {
    return this.sql<{ text: string }>`SELECT text FROM queries WHERE seq < ${seq} ORDER BY seq`.map(
      (r) => r.text,
    );
  }

  activeQueries(): QueryRecord[] {
    return this.sql<QueryRow>`SELECT * FROM queries WHERE status IN ('planning', 'running') ORDER BY seq`.map(
      toQuery,
    );
  }

  /** Forgets finished queries last touched more than `keepDays` ago, with everything they left here. */
  prune(keepDays: number, now = Date.now()): number {
    const cutoff = new Date(now - keepDays * 86_400_000).toISOString();
    const old = this.sql<{ id: string }>`SELECT id FROM queries
      WHERE status IN ('completed', 'failed', 'rejected') AND updated_at < ${cutoff}`.map((r) => r.id);
    for (const id of old) {
      this.sql`DELETE FROM events WHERE query_id = ${id}`;
      this.sql`DELETE FROM journal WHERE query_id = ${id}`;
      this.sql`DELETE FROM display WHERE query_id = ${id}`;
      this.sql`DELETE FROM consents WHERE query_id = ${id}`;
      this.sql`DELETE FROM queries WHERE id = ${id}`;
    }
    return old.length;
  }

  insertQuery(
    id: string,
    text: string,
    idempotencyKey: string | null,
    options: QueryOptions,
    picks: AppPicks = {},
    trace: string | null = null,
  ): QueryRecord {
    // MAX, not COUNT: retention deletes old queries, and a reused seq would reorder the session.
    const seq = (this.sql<{ n: number | null }>`SELECT MAX(seq) AS n FROM queries`[0]?.n ?? 0) + 1;
    const at = now();
    this
      .sql`INSERT INTO queries (id, seq, text, status, idempotency_key, options, picks, trace, created_at, updated_at)
             VALUES (${id}, ${seq}, ${text}, 'planning', ${idempotencyKey}, ${JSON.stringify(options)},
                     ${JSON.stringify(picks)}, ${trace}, ${at}, ${at})`;
    return this.query(id)!;
  }

  /**
   * Writes one transition of the query machine (runtime/query-machine.ts) in one transaction: the
   * row's fields, the query's events and, when a private session's query ends, the end of its values
   * here (journal and consents; only what was displayed remains). Returns the row as written.
   */
  apply(query: QueryRecord, t: Transition): QueryRecord {
    const { write } = t;
    if (!write && !t.events.length && !t.forget) return query;
    const pushed: Array<() => HubEvent> = [];
    const written = this.transaction(() => {
      const id = query.id;
      const row = write ? this.update(id, write) : query;
      for (const { type, data } of t.events) pushed.push(this.write(id, type, data));
      if (t.forget) {
        this.sql`UPDATE journal SET value = NULL WHERE query_id = ${id}`;
        this.consents.forgetValues(id);
      }
      return row;
    });
    // Open streams hear of the events once they are committed.
    for (const event of pushed) this.written(event);
    return written;
  }

  /** `plan`, `context` and `verdict` are JSON text as given; `error` only as the display boundary made it. */
  private update(id: string, fields: QueryFields): QueryRecord {
    const row = this.sql<QueryRow>`SELECT * FROM queries WHERE id = ${id}`[0]!;
    const written = {
      ...row,
      status: fields.status ?? row.status,
      plan: fields.plan ?? row.plan,
      context: fields.context ?? row.context,
      verdict: fields.verdict ?? row.verdict,
      error: fields.error === undefined ? row.error : JSON.stringify(fields.error),
      updated_at: now(),
    };
    this
      .sql`UPDATE queries SET status = ${written.status}, plan = ${written.plan}, context = ${written.context},
             verdict = ${written.verdict}, error = ${written.error}, updated_at = ${written.updated_at}
             WHERE id = ${id}`;
    return toQuery(written);
  }

  journal(queryId: string): Map<string, JournalEntry> {
    const rows = this.sql<{
      key: string;
      kind: string;
      state: string;
      value: string | null;
      label: string | null;
      info: string | null;
    }>`
      SELECT key, kind, state, value, label, info FROM journal WHERE query_id = ${queryId}`;
    return new Map(
      rows.map((r) => [
        r.key,
        {
          key: r.key,
          kind: r.kind,
          state: JournalState.parse(r.state),
          value: r.value === null ? null : decode(Json, r.value, "a journaled value"),
          label: r.label === null ? null : decode(LabelSchema, r.label, "a journaled label"),
          info: r.info === null ? null : decode(Info, r.info, "a journal entry's info"),
        },
      ]),
    );
  }

  /** Written before an effect is sent: a crash after this point is detectable on resume. */
  journalStarted(queryId: string, key: string, kind: string, info: Record<string, unknown>): void {
    this.sql`INSERT OR REPLACE INTO journal (query_id, key, kind, state, info)
             VALUES (${queryId}, ${key}, ${kind}, 'started', ${JSON.stringify(info)})`;
  }

  journalDone(
    queryId: string,
    key: string,
    kind: string,
    value: unknown,
    label: { confidentiality: string; integrity: string },
    info: Record<string, unknown>,
  ) {
    this.sql`INSERT OR REPLACE INTO journal (query_id, key, kind, state, value, label, info)
             VALUES (${queryId}, ${key}, ${kind}, 'done', ${JSON.stringify(value ?? null)}, ${JSON.stringify(label)},
                     ${JSON.stringify(info)})`;
  }

  addDisplay(queryId: string, item: DisplayItem): void {
    this
      .sql`INSERT OR IGNORE INTO display (query_id, key, title, value, label, redacted, untrusted, provenance)
             VALUES (${queryId}, ${item.key}, ${item.title}, ${item.redacted ? null : JSON.stringify(item.value ?? null)},
                     ${JSON.stringify(item.label)}, ${item.redacted ? 1 : 0}, ${item.untrusted ? 1 : 0},
                     ${JSON.stringify(item.provenance)})`;
  }

  display(queryId: string): DisplayItem[] {
    return this.sql<{
      key: string;
      title: string | null;
      value: string | null;
      label: string;
      redacted: number;
      untrusted: number;
      provenance: string | null;
    }>`
      SELECT key, title, value, label, redacted, untrusted, provenance FROM display
      WHERE query_id = ${queryId} ORDER BY seq`.map((r) => ({
      key: r.key,
      title: r.title,
      value: r.value === null ? null : decode(Json, r.value, "a display value"),
      label: decode(LabelSchema, r.label, "a display label"),
      redacted: r.redacted === 1,
      untrusted: r.untrusted === 1,
      provenance:
        r.provenance === null
          ? { from: [], apps: [] }
          : decode(ProvenanceSchema, r.provenance, "a display item's provenance"),
    }));
  }

  emit<T extends HubEventType>(queryId: string, type: T, data: HubEventData<T>): void {
    this.written(this.write(queryId, type, data));
  }

  /** Writes an event; returns it as a read would (data as stored), so a pushed event and a replayed one are the same. */
  private write(queryId: string, type: HubEventType, data: HubEventData): () => HubEvent {
    const text = JSON.stringify(data);
    const row = this.sql<{ seq: number; at: string }>`INSERT INTO events (query_id, type, data, at)
      VALUES (${queryId}, ${type}, ${text}, ${now()}) RETURNING seq, at`[0]!;
    return () => ({ seq: row.seq, queryId, type, data: decode(Info, text, "an event"), at: row.at });
  }

  events(afterSeq: number, queryId?: string, limit = 500): HubEvent[] {
    const rows = queryId
      ? this
          .sql<EventRow>`SELECT * FROM events WHERE seq > ${afterSeq} AND query_id = ${queryId} ORDER BY seq LIMIT ${limit}`
      : this.sql<EventRow>`SELECT * FROM events WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
    // A row of a type this version does not know (written by a newer one, then rolled back) is
    // skipped and logged: one such row must not end every read and stream of the session.
    return rows.flatMap((r) => {
      const type = HubEventTypeSchema.safeParse(r.type);
      if (!type.success) {
        console.error(`hub: event ${r.seq} has an unknown type; skipped`);
        return [];
      }
      return [
        {
          seq: r.seq,
          queryId: r.query_id,
          type: type.data,
          data: decode(Info, r.data, "an event"),
          at: r.at,
        },
      ];
    });
  }
}

type EventRow = { seq: number; query_id: string; type: string; data: string; at: string };
