import * as z from "zod";
import { decode } from "../../decode.ts";
import { CONSENT_KINDS, SCOPES } from "../../policy/index.ts";
import {
  type Consent,
  type ConsentAsk,
  ConsentRequestSchema,
  type ConsentStatus,
  type ConsentWrite,
  type Settlement,
} from "../../runtime/index.ts";
import type { Sql } from "../sql.ts";

/** Consent requests of a session and its session-scoped grants (permanent ones live in the ArtifactsDO). */
export const CONSENT_MIGRATIONS = [
  `CREATE TABLE consents (
     id TEXT PRIMARY KEY, query_id TEXT NOT NULL, step_key TEXT NOT NULL, kind TEXT NOT NULL,
     subject TEXT NOT NULL, grant_subject TEXT, request TEXT NOT NULL, status TEXT NOT NULL, scope TEXT, choice TEXT,
     created_at TEXT NOT NULL, expires_at INTEGER NOT NULL, answered_at TEXT)`,
  `CREATE INDEX consents_by_query ON consents (query_id, subject)`,
  `CREATE TABLE session_grants (subject TEXT PRIMARY KEY, choice TEXT, created_at TEXT NOT NULL)`,
];

type Row = {
  id: string;
  query_id: string;
  step_key: string;
  kind: string;
  subject: string;
  grant_subject: string | null;
  request: string;
  status: string;
  scope: string | null;
  choice: string | null;
  created_at: string;
  expires_at: number;
};

export class ConsentStore {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** The latest consent asked for this query and subject (the gate's memory across replays). */
  forSubject(queryId: string, subject: string): Consent | null {
    const row = this.sql<Row>`SELECT * FROM consents WHERE query_id = ${queryId} AND subject = ${subject}
                              ORDER BY created_at DESC, rowid DESC LIMIT 1`[0];
    return row ? toConsent(row) : null;
  }

  get(id: string): Consent | null {
    const row = this.sql<Row>`SELECT * FROM consents WHERE id = ${id}`[0];
    return row ? toConsent(row) : null;
  }

  list(filter: { status?: ConsentStatus; queryId?: string } = {}): Consent[] {
    const rows = this.sql<Row>`SELECT * FROM consents ORDER BY created_at, rowid`;
    return rows
      .map(toConsent)
      .filter(
        (c) =>
          (!filter.status || c.status === filter.status) && (!filter.queryId || c.queryId === filter.queryId),
      );
  }

  /** Inserts a consent the consent path (consent-path.ts) asked, in the status it gave. */
  ask(
    id: string,
    queryId: string,
    input: Omit<ConsentAsk, "tool">,
    timeoutSeconds: number,
    status: ConsentStatus,
  ): Consent {
    const expiresAt = Date.now() + timeoutSeconds * 1000;
    this
      .sql`INSERT INTO consents (id, query_id, step_key, kind, subject, grant_subject, request, status, created_at,
                                   expires_at)
             VALUES (${id}, ${queryId}, ${input.stepKey}, ${input.kind}, ${input.subject}, ${input.grantSubject},
                     ${JSON.stringify(input.request)}, ${status}, ${new Date().toISOString()}, ${expiresAt})`;
    return this.get(id)!;
  }

  /**
   * Writes a settlement the consent path gave, only while the consent is pending: true when this
   * write moved it (the one whose records are sent), false when another got there first.
   */
  settle(id: string, write: ConsentWrite): boolean {
    return (
      this.sql<{ id: string }>`UPDATE consents SET status = ${write.status}, scope = ${write.scope},
             choice = ${write.choice}, answered_at = ${new Date().toISOString()}
             WHERE id = ${id} AND status = 'pending' RETURNING id`.length > 0
    );
  }

  /**
   * A private session's query is over: its consents keep what was asked and answered, not the
   * values shown (`data`, and the `view` that shows them) nor a spoke's request as its agent wrote
   * it (`payload`).
   */
  forgetValues(queryId: string): void {
    for (const row of this.sql<{ id: string; request: string }>`SELECT id, request FROM consents
                                                                 WHERE query_id = ${queryId}`) {
      const {
        data: _data,
        payload: _payload,
        view: _view,
        ...kept
      } = decode(ConsentRequestSchema, row.request, "a consent's request");
      this.sql`UPDATE consents SET request = ${JSON.stringify({ ...kept, data: null })} WHERE id = ${row.id}`;
    }
  }

  /** Pending consents whose time is up, and the earliest expiry still ahead (for the alarm). */
  overdue(now: number): Consent[] {
    return this.sql<Row>`SELECT * FROM consents WHERE status = 'pending' AND expires_at <= ${now}`.map(
      toConsent,
    );
  }

  nextExpiry(): number | null {
    return (
      this.sql<{ t: number | null }>`SELECT MIN(expires_at) AS t FROM consents WHERE status = 'pending'`[0]
        ?.t ?? null
    );
  }

  /**
   * The standing grant an allowed answer leaves: a session grant is written here; a permanent one
   * belongs to the user, not the session, and is returned for the user's ArtifactsDO to keep.
   */
  grant(
    consent: Consent,
    settle: Settlement,
  ): { kind: string; subject: string; choice: string | null; description: string } | null {
    const grant = settle.grant;
    if (grant?.scope === "session") this.grantForSession(grant.subject, grant.choice);
    return grant?.scope === "permanent"
      ? { kind: consent.kind, subject: grant.subject, choice: grant.choice, description: grant.description }
      : null;
  }

  sessionGrant(subject: string): { choice: string | null } | null {
    return (
      this.sql<{ choice: string | null }>`SELECT choice FROM session_grants WHERE subject = ${subject}`[0] ??
      null
    );
  }

  grantForSession(subject: string, choice: string | null): void {
    this
      .sql`INSERT OR REPLACE INTO session_grants VALUES (${subject}, ${choice}, ${new Date().toISOString()})`;
  }
}

const Kind = z.enum(CONSENT_KINDS);
const Status = z.enum(["pending", "allowed", "denied", "expired"]);
const ScopeOrNone = z.enum(SCOPES).nullable();

function toConsent(row: Row): Consent {
  return {
    id: row.id,
    grantSubject: row.grant_subject,
    kind: Kind.parse(row.kind),
    queryId: row.query_id,
    stepId: row.step_key,
    ...decode(ConsentRequestSchema, row.request, "a consent's request"),
    status: Status.parse(row.status),
    scope: ScopeOrNone.parse(row.scope),
    choice: row.choice,
    createdAt: row.created_at,
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}
