import type { Advance, ArtifactDraft } from "./advance.ts";
import { type Answerer, type AuditRow, consentRecords } from "./consent-path.ts";
import { type Consent, type ConsentAnswer, type ConsentAsk, expiryStopsQuery } from "./consents.ts";
import type { NewEvent } from "./events.ts";
import type { QueryError } from "./failure.ts";
import type { AppPicks } from "./picks.ts";
import type { Planned } from "./planning.ts";
import { type LoadedQuery, plannedQuery, storedContext } from "./query.ts";
import type { QueryOptions, QueryStatus } from "./records.ts";
import { planCalls, type ShownError, shownError } from "./shown-error.ts";

/**
 * A query's life as a state machine: `next(query, event)` says what an event does to a query: its
 * new status, the row fields, events and audit rows to write, whether a private session forgets its
 * values, whether the hub's loaded copy goes, and the effects the hub performs on other objects.
 * The hub writes a transition in one store call (HubStore.apply) and performs its effects; it
 * decides nothing itself. An event a status does not expect changes nothing (`unchanged`).
 */

/** The query as the machine reads it: its stored row, and whether its session is private. */
export interface MachineQuery {
  id: string;
  status: QueryStatus;
  text: string;
  picks: AppPicks;
  options: QueryOptions;
  plan: string | null;
  context: string | null;
  privateSession: boolean;
}

export type { Answerer, AuditRow } from "./consent-path.ts";

export type QueryEvent =
  /** An advance begins: the row is touched (the alarm serves the query that waited longest). */
  | { type: "advancing" }
  /** Planning's outcome: a plan to run, a rejected plan, or none (`invalid`). */
  | { type: "planned"; planned: Planned }
  /** A run of the plan's steps ended: go on, wait for the user, or end. */
  | { type: "stepped"; advance: Advance }
  /** The consent an `ask` effect asked for is recorded: the query waits for it. */
  | { type: "asked"; consentId: string; ask: ConsentAsk }
  /** A consent of the query was answered; `pending`: how many of its consents still wait. */
  | { type: "answered"; consent: Consent; answer: ConsentAnswer; by?: Answerer; pending: number }
  /** A consent of the query went unanswered past its time. */
  | { type: "expired"; consent: Consent }
  | { type: "failed"; error: QueryError }
  | { type: "completed" };

/** Row fields as written; `error` only as the display boundary made it. */
export interface QueryFields {
  status?: QueryStatus;
  plan?: string;
  context?: string;
  verdict?: string;
  error?: ShownError;
}

/** Work on other objects, or on the hub's memory, that the hub performs for a transition. */
export type QueryEffect =
  /** Store these in the user's artifacts. */
  | { kind: "keep"; artifacts: ArtifactDraft[] }
  /** Ask the user this consent; the hub answers with an `asked` event carrying its id. */
  | { kind: "ask"; ask: ConsentAsk }
  /** Hold the plan as verified now for the query's first run (no read back and verify again). */
  | { kind: "hold"; query: LoadedQuery };

export interface Transition {
  status: QueryStatus;
  /** The row's fields to write (empty: touched only); null leaves the row as it is. */
  write: QueryFields | null;
  events: NewEvent[];
  /** Sent to the tenant's audit log once the transition is written. */
  audit: AuditRow[];
  /** A private session's query ended: its values go (journal, consents); only what was displayed remains. */
  forget: boolean;
  /** The query ended: the hub's loaded copy of it goes. */
  uncache: boolean;
  effects: QueryEffect[];
  /** The event the hub brings once the effects are done (an end waits for its artifacts to be kept). */
  after: QueryEvent | null;
}

export function next(query: MachineQuery, event: QueryEvent): Transition {
  const { status } = query;
  switch (event.type) {
    case "advancing":
      return {
        ...unchanged(query),
        write: {},
        events: status === "planning" ? [{ type: "planning", data: {} }] : [],
      };
    case "planned":
      return status === "planning" ? planned(query, event.planned) : unchanged(query);
    case "stepped":
      return status === "running" ? stepped(query, event.advance) : unchanged(query);
    case "asked":
      return status === "running" ? asked(query, event.consentId, event.ask) : unchanged(query);
    case "answered":
      return answered(query, event);
    case "expired":
      return expired(query, event.consent);
    case "failed":
      return ACTIVE.has(status) ? failed(query, event.error) : unchanged(query);
    case "completed":
      if (status !== "running") return unchanged(query);
      return ended(query, "completed", { events: [finished("completed")] });
  }
}

const ACTIVE: ReadonlySet<QueryStatus> = new Set(["planning", "running", "awaiting_consent"]);

/** Nothing written, nothing sent, nothing to do. */
export function unchanged(query: MachineQuery): Transition {
  return {
    status: query.status,
    write: null,
    events: [],
    audit: [],
    forget: false,
    uncache: false,
    effects: [],
    after: null,
  };
}

/** However a query ends: its status written, a private session's values forgotten, the loaded copy dropped. */
function ended(
  query: MachineQuery,
  status: "completed" | "failed" | "rejected",
  parts: { fields?: QueryFields; events: NewEvent[]; audit?: AuditRow[] },
): Transition {
  return {
    ...unchanged(query),
    status,
    write: { ...parts.fields, status },
    events: parts.events,
    audit: parts.audit ?? [],
    forget: query.privateSession,
    uncache: true,
  };
}

const finished = (status: "completed" | "failed" | "rejected", code?: string): NewEvent => ({
  type: "query_finished",
  data: code === undefined ? { status } : { status, code },
});

function planned(query: MachineQuery, planned: Planned): Transition {
  const queryId = query.id;
  if (planned.state === "invalid") {
    const errors = Array.isArray(planned.error.details) ? planned.error.details.slice(0, 20) : [];
    return ended(query, "failed", {
      fields: { error: shownError(planned.error, new Set()) },
      events: [finished("failed")],
      audit: [{ type: "plan_invalid", detail: { queryId, errors } }],
    });
  }
  const { violations, redactions } = planned.verdict;
  const fields = {
    plan: JSON.stringify(planned.plan),
    context: storedContext(planned.context),
    verdict: JSON.stringify({ violations, redactions }),
  };
  if (planned.state === "rejected") {
    return ended(query, "rejected", {
      fields: { ...fields, ...(planned.error && { error: shownError(planned.error, new Set()) }) },
      events: [finished("rejected")],
      audit: [{ type: "plan_rejected", detail: { queryId, violations, attempts: planned.attempts } }],
    });
  }
  return {
    ...unchanged(query),
    status: "running",
    write: { status: "running", ...fields },
    // The planner's token use shows in the trace (a live model bills it; scripted ones estimate).
    events: [
      {
        type: "planned",
        data: { attempts: planned.attempts, violations: violations.length, tokens: planned.tokens },
      },
    ],
    audit: redactions.length
      ? [{ type: "display_redacted", detail: { queryId, items: redactions.map((r) => r.path) } }]
      : [],
    effects: [{ kind: "hold", query: plannedQuery(query, planned.context, planned.plan, planned.verdict) }],
  };
}

function stepped(query: MachineQuery, advance: Advance): Transition {
  switch (advance.next) {
    case "continue":
      return unchanged(query);
    case "wait":
      return advance.ask
        ? { ...unchanged(query), effects: [{ kind: "ask", ask: advance.ask }] }
        : unchanged(query);
    case "done":
      return { ...unchanged(query), effects: kept(query, advance.artifacts), after: { type: "completed" } };
    case "failed":
      return {
        ...unchanged(query),
        effects: kept(query, advance.artifacts),
        after: { type: "failed", error: advance.error },
      };
  }
}

/** What a query leaves in the user's artifacts: nothing from a private session. */
function kept(query: MachineQuery, artifacts: ArtifactDraft[]): QueryEffect[] {
  return query.privateSession || !artifacts.length ? [] : [{ kind: "keep", artifacts }];
}

/** A plan step's consent is recorded: the query waits; the consent's records are the consent path's. */
function asked(query: MachineQuery, consentId: string, ask: ConsentAsk): Transition {
  const consent = {
    id: consentId,
    queryId: query.id,
    kind: ask.kind,
    stepId: ask.stepKey,
    assessment: ask.request.assessment,
  };
  return {
    ...unchanged(query),
    status: "awaiting_consent",
    write: { status: "awaiting_consent" },
    ...consentRecords(consent, { type: "asked", origin: { tool: ask.tool } }),
  };
}

/** A plan step's consent answered while the query waits; a spoke's collaboration while it runs. */
/**
 * The user's answer is recorded and audited whatever became of the query meanwhile (an expiry of
 * another of its consents may have ended it while the answer was being stored); only a query
 * waiting on no other consent resumes.
 */
function answered(query: MachineQuery, event: Extract<QueryEvent, { type: "answered" }>): Transition {
  const { consent, answer, by } = event;
  const resumes = query.status === "awaiting_consent" && event.pending === 0;
  return {
    ...unchanged(query),
    status: resumes ? "running" : query.status,
    write: resumes ? { status: "running" } : null,
    ...consentRecords(consent, { type: "answered", answer, by }),
  };
}

/** The expiry is audited whatever the query's status; a query it stops fails as any other failure. */
function expired(query: MachineQuery, consent: Consent): Transition {
  const { audit } = consentRecords(consent, { type: "expired" });
  if (!expiryStopsQuery(consent, query.status)) return { ...unchanged(query), audit };
  const stopped = failed(query, { code: "consent_expired", message: "", details: { step: consent.stepId } });
  return { ...stopped, audit: [...audit, ...stopped.audit] };
}

/**
 * A query fails, from a step, planning's machinery, or a consent's expiry. The error leaves through
 * the display boundary: stored, shown and audited as its code's words and the facts of its plan.
 */
function failed(query: MachineQuery, error: QueryError): Transition {
  const names = query.plan ? planCalls(JSON.parse(query.plan), query.context) : new Set<string>();
  const shown = shownError(error, names, query.options.boundary !== "off");
  return ended(query, "failed", {
    fields: { error: shown },
    events: [finished("failed", shown.code)],
    audit: [{ type: "query_failed", detail: { queryId: query.id, ...shown } }],
  });
}
