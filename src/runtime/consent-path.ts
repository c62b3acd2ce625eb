import type { AuditType } from "../audit-types.ts";
import type { Assessment, ConsentKind, Scope } from "../policy/index.ts";
import type { ConsentAnswer, ConsentStatus, Settlement } from "./consents.ts";
import type { NewEvent } from "./events.ts";

/**
 * A consent's life as a transition function: `consentNext(consent, event)` says what an event does
 * to a consent (its status write, the events the query's trace shows, the audit rows), or refuses
 * it with a closed code. Every consent, a plan step's or a spoke's relay, is asked, answered,
 * expired and withdrawn through here, so each is audited once, however it was reached: the hub
 * writes the status only while the consent is pending, and only the write that moved it sends its
 * records. The query machine (query-machine.ts) takes a consent's records from `consentRecords`,
 * adding only what the event does to the query.
 */

/** Who answered a consent, for its audit row: the API key's id (never the key), and a user token's user. */
export interface Answerer {
  keyId: string;
  viaUserToken: boolean;
  /** Answered through a consent link the chat showed (a user with no Lattice credential). */
  viaConsentLink?: boolean;
  userId?: string;
}

export interface AuditRow {
  type: AuditType;
  detail: Record<string, unknown>;
}

/** A consent's status as the path reads it: `unasked` before it is recorded. */
export type ConsentPathStatus = "unasked" | ConsentStatus;
export const CONSENT_PATH_STATES: readonly ConsentPathStatus[] = [
  "unasked",
  "pending",
  "allowed",
  "denied",
  "expired",
];

/** What the path reads of a consent. */
export interface ConsentFacts {
  id: string;
  queryId: string;
  kind: ConsentKind;
  stepId: string;
  assessment: Assessment;
  /** A later consent of a spoke's relay. */
  relay?: { consent: string } | undefined;
  status: ConsentPathStatus;
}

/** Who asks: a plan step's tool (the query waits), or a spoke's app (its step runs on). */
export type ConsentOrigin = { tool: string } | { from: string };

/** An event as its records need it; `answered` on the path also carries what the answer settled. */
export type ConsentRecordEvent =
  | { type: "asked"; origin: ConsentOrigin }
  | { type: "answered"; answer: ConsentAnswer; by?: Answerer | undefined }
  /** Nobody answered in time (the alarm, a late answer, or a spoke asking after it). */
  | { type: "expired" }
  /** The asking spoke stopped waiting: a relay's consent only. */
  | { type: "withdrawn" };

export type ConsentEvent =
  | Exclude<ConsentRecordEvent, { type: "answered" }>
  | (Extract<ConsentRecordEvent, { type: "answered" }> & {
      settle: Pick<Settlement, "status" | "scope" | "choice">;
    });

/** The consent row's fields as written. A withdrawn consent reads as expired: nobody will act on it. */
export interface ConsentWrite {
  status: ConsentStatus;
  scope: Scope | null;
  choice: string | null;
}

export type ConsentRefusal =
  /** Answered, expired or withdrawn before it was asked. */
  | "not_asked"
  /** Asked again: a consent is asked once. */
  | "already_asked"
  /** Settled already (answered, expired or withdrawn): the first settlement stands. */
  | "already_settled"
  /** Only a spoke's request can be withdrawn; a plan step's consent waits for the user or its time. */
  | "not_withdrawable";

export type ConsentStep =
  | { ok: true; write: ConsentWrite; events: NewEvent[]; audit: AuditRow[] }
  | { ok: false; code: ConsentRefusal; status: ConsentPathStatus };

/** Whether a consent belongs to a spoke's request (its collaboration, or a later consent of its relay). */
export function isRelayConsent(consent: Pick<ConsentFacts, "kind" | "relay">): boolean {
  return consent.kind === "collaboration" || consent.relay !== undefined;
}

export function consentNext(consent: ConsentFacts, event: ConsentEvent): ConsentStep {
  const refuse = (code: ConsentRefusal): ConsentStep => ({ ok: false, code, status: consent.status });
  if (consent.status === "unasked") {
    if (event.type !== "asked") return refuse("not_asked");
  } else if (consent.status !== "pending") return refuse("already_settled");
  else if (event.type === "asked") return refuse("already_asked");
  if (event.type === "withdrawn" && !isRelayConsent(consent)) return refuse("not_withdrawable");
  return { ok: true, write: written(event), ...consentRecords(consent, event) };
}

function written(event: ConsentEvent): ConsentWrite {
  switch (event.type) {
    case "asked":
      return { status: "pending", scope: null, choice: null };
    case "answered":
      return { status: event.settle.status, scope: event.settle.scope, choice: event.settle.choice };
    case "expired":
    case "withdrawn":
      return { status: "expired", scope: null, choice: null };
  }
}

/** The trace's events and the audit rows of a consent's event, whoever carries them out. */
export function consentRecords(
  consent: Omit<ConsentFacts, "status">,
  event: ConsentRecordEvent,
): { events: NewEvent[]; audit: AuditRow[] } {
  const { queryId, id: consentId, kind } = consent;
  switch (event.type) {
    case "asked": {
      const { origin } = event;
      const { assessment } = consent;
      // A plan step's consent names its tool and step; a spoke's, the app that asks.
      return "tool" in origin
        ? {
            events: [
              {
                type: "consent_requested",
                data: { consentId, kind, tool: origin.tool, key: consent.stepId },
              },
            ],
            audit: [
              { type: "consent_asked", detail: { queryId, consentId, kind, tool: origin.tool, assessment } },
            ],
          }
        : {
            events: [{ type: "consent_requested", data: { consentId, kind, from: origin.from } }],
            audit: [{ type: "consent_asked", detail: { queryId, consentId, kind, assessment } }],
          };
    }
    case "answered": {
      const { answer, by } = event;
      return {
        events: [
          { type: "consent_answered", data: { consentId, decision: answer.decision, scope: answer.scope } },
        ],
        audit: [
          {
            type: "consent_answered",
            detail: { queryId, consentId, kind, ...answer, ...(by && { answeredBy: by }) },
          },
        ],
      };
    }
    case "expired":
      return { events: [], audit: [{ type: "consent_expired", detail: { queryId, consentId, kind } }] };
    case "withdrawn":
      return { events: [], audit: [{ type: "consent_withdrawn", detail: { queryId, consentId, kind } }] };
  }
}
