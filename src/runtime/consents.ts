import * as z from "zod";
import { type Assessment, allowedScopes, type ConsentKind, SCOPES, type Scope } from "../policy/index.ts";
import { type Failure, failure, type Ok } from "../result.ts";
import { ConsentViewSchema } from "./consent-view.ts";

/**
 * Consents as data, and the rules for answering one: which answers stand, what an answer settles
 * and which standing grant it leaves. Pure: the hub reads the consent, calls `answerRules`, and
 * writes what it returns.
 */

export type ConsentStatus = "pending" | "allowed" | "denied" | "expired";

const AppOptionSchema = z.object({ tool: z.string(), app: z.string(), description: z.string() });

/** What the user is shown (API.md's consent shape), stored as JSON with the consent. */
export const ConsentRequestSchema = z.object({
  from: z.array(z.string()).optional(),
  to: z.string().optional(),
  functionality: z.string(),
  /** The concrete values to be shared, for the user to see. */
  data: z.unknown(),
  assessment: z.object({ verdict: z.enum(["expected", "warning"]), reasons: z.array(z.string()) }),
  scopes: z.array(z.enum(SCOPES)),
  options: z.array(AppOptionSchema).optional(),
  /** A later consent of a spoke's collaboration request: the id of the `collaboration` consent it follows. */
  relay: z.object({ consent: z.string() }).optional(),
  /** A spoke's request as its agent wrote it, for the relay; never shown (`data` applies the display policy). */
  payload: z.unknown().optional(),
  /** An `authorize` consent: where the user signs in to the app (its authorization server). */
  authorization: z.object({ url: z.string() }).optional(),
  /** A collaboration consent: what the asking agent read, in words and as confidentiality levels. */
  asker: z.object({ read: z.array(z.string()), carried: z.array(z.string()) }).optional(),
  /** The consent as a person reads it (consent-view.ts); absent on consents stored before views. */
  view: ConsentViewSchema.optional(),
});
export type ConsentRequest = z.infer<typeof ConsentRequestSchema> & { assessment: Assessment };

export interface Consent extends ConsentRequest {
  id: string;
  grantSubject: string | null;
  kind: ConsentKind;
  queryId: string;
  stepId: string;
  status: ConsentStatus;
  scope: Scope | null;
  choice: string | null;
  createdAt: string;
  expiresAt: string;
}

/** A consent the runtime wants asked: the hub records it and the query waits. */
export interface ConsentAsk {
  kind: ConsentKind;
  stepKey: string;
  /** The gate's memory across replays: one consent per (query, subject). */
  subject: string;
  /** What a session or permanent grant from this answer covers (null: once-only kinds). */
  grantSubject: string | null;
  tool: string;
  request: ConsentRequest;
}

export interface ConsentAnswer {
  decision: "allow" | "deny";
  scope: Scope;
  /** For app_selection: the tool picked from the consent's options. */
  choice?: string;
}

/** What a valid answer settles; `grant` is the standing permission it leaves, if any. */
export interface Settlement {
  status: "allowed" | "denied";
  scope: Scope;
  choice: string | null;
  grant: {
    scope: "session" | "permanent";
    subject: string;
    choice: string | null;
    description: string;
  } | null;
}

export type AnswerCheck =
  | Ok<{ settle: Settlement }>
  | Failure<"not_found" | "query_finished" | "invalid_choice", undefined>
  | Failure<"already_answered", { status: ConsentStatus; late: boolean }>
  | Failure<"scope_not_allowed", { allowed: Scope[] }>;

/**
 * The rules for an answer. A late answer finds the consent expired (`late`: the hub records the
 * expiry now, even if the alarm has not run). A collaboration is asked while its step runs, every
 * other consent while the query waits. A private session keeps nothing beyond itself, a standing
 * grant included.
 */
export function answerRules(
  consent: Consent,
  facts: { queryStatus: string | null; privateSession: boolean; now: number },
  answer: ConsentAnswer,
): AnswerCheck {
  if (consent.status === "pending" && Date.parse(consent.expiresAt) <= facts.now) {
    return failure("already_answered", "expired", { status: "expired", late: true });
  }
  if (consent.status !== "pending") {
    return failure("already_answered", consent.status, { status: consent.status, late: false });
  }
  // A spoke's request is answered while its step runs; a plan step's while the query waits.
  const waiting = consent.kind === "collaboration" || consent.relay ? "running" : "awaiting_consent";
  if (facts.queryStatus !== waiting) return failure("query_finished", "the query no longer waits for this");
  // The stored offer, never wider than its kind allows; no permanent grant from a private session.
  const allowed = consent.scopes.filter(
    (s) => allowedScopes(consent.kind).includes(s) && !(facts.privateSession && s === "permanent"),
  );
  if (!allowed.includes(answer.scope)) {
    return failure("scope_not_allowed", `allowed: ${allowed.join(", ")}`, { allowed });
  }
  const allow = answer.decision === "allow";
  let choice: string | null = null;
  if (allow && consent.options?.length) {
    // The user picks the app; with a single option, allowing picks it.
    choice = answer.choice ?? (consent.options.length === 1 ? consent.options[0]!.tool : null);
    if (!consent.options.some((o) => o.tool === choice)) return failure("invalid_choice", "not an option");
  }
  const lasting = answer.scope === "session" || answer.scope === "permanent";
  const grant =
    allow && lasting && consent.grantSubject
      ? {
          scope: answer.scope as "session" | "permanent",
          subject: consent.grantSubject,
          choice,
          description: describeGrant(consent, choice),
        }
      : null;
  return { ok: true, settle: { status: allow ? "allowed" : "denied", scope: answer.scope, choice, grant } };
}

function describeGrant(consent: Consent, choice: string | null): string {
  if (consent.kind === "app_selection") return `use ${choice} for ${consent.functionality}`;
  return `share data from ${(consent.from ?? []).join(", ") || "your apps"} with ${consent.functionality}`;
}

/** Whether the query stops when this consent expires: a collaboration just goes unanswered. */
export function expiryStopsQuery(consent: Consent, queryStatus: string | null): boolean {
  return consent.kind !== "collaboration" && !consent.relay && queryStatus === "awaiting_consent";
}

/** A consent as a frontend may see it: without the relay's payload (its `data` is the shown form). */
export function shownConsent(consent: Consent): Consent {
  const { payload: _payload, ...shown } = consent;
  return shown;
}
