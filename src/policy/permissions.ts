/**
 * Permission rules (IsolateGPT's consent model on the hub): which consent a step needs, which
 * scopes the user may grant, and the hub's deterministic assessment of the flow. Pure: it reads
 * plan facts and policy, never a model's opinion.
 */
import type { Source } from "./flow.ts";
import type { Policy } from "./policy-schema.ts";
import type { Violation } from "./verify.ts";

export const CONSENT_KINDS = [
  "app_selection",
  "data_share",
  "collaboration",
  "irreversible",
  "endorse",
  /**
   * An unconditional step's endorsement asked before any step runs (gate.ts `endorseFirst`): where
   * the value will come from, never a value (none exists yet). The step's own `endorse` follows.
   */
  "endorse_plan",
  /** The user authorizes an app at its own authorization server (per-user OAuth) before its first call. */
  "authorize",
] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

export const SCOPES = ["once", "session", "permanent"] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * An irreversible action, an endorsed value and a spoke's collaboration request (concrete data an
 * agent chose) are decided one at a time, never in advance.
 */
export function allowedScopes(kind: ConsentKind): Scope[] {
  return kind === "irreversible" ||
    kind === "endorse" ||
    kind === "endorse_plan" ||
    kind === "collaboration" ||
    kind === "authorize"
    ? ["once"]
    : [...SCOPES];
}

export interface Assessment {
  readonly verdict: "expected" | "warning";
  readonly reasons: string[];
}

/** What the hub knows about a call it is about to make. */
export interface CallFacts {
  readonly tool: string;
  readonly app: string;
  readonly irreversible: boolean;
  /** The verifier's violations at this step: under `ask` they reach here, as endorsable flows. */
  readonly violations: readonly Violation[];
  /** Other apps (or "artifacts", the user's saved data) whose data flows into this call. */
  readonly origins: readonly string[];
  /** False for a call the verified plan did not name (a spoke's collaboration request). */
  readonly inPlan: boolean;
  /** Set when a spoke asked for the call: the app, and what its model read (in the user's words). */
  readonly requester?: { readonly app: string; readonly read: readonly string[] };
  /**
   * What the planner read: the tenant's catalog only, or app-written metadata too (`apps`), in which
   * case the plan itself may carry an app's wish, so no irreversible or sharing step is `expected`.
   */
  readonly plannedFrom?: "catalog" | "apps";
  /**
   * Arguments below their floor that a remedy met on the value (vouch.ts): content chose them
   * among trusted values (`match`) or wrote them (`sanitise`). They meet the policy, but the user
   * is not the one who decided them, so the consent is never `expected` (#43).
   */
  readonly remedied?: readonly Remedied[];
}

/** One argument a remedy met, as the assessment words it: names and counts, never the value. */
export type Remedied =
  | { readonly argument: string; readonly by: "match"; readonly source: string; readonly candidates: number }
  | { readonly argument: string; readonly by: "sanitise" };

export interface ConsentNeed {
  readonly kind: ConsentKind;
  readonly scopes: Scope[];
  readonly assessment: Assessment;
}

/**
 * The one consent a call needs, if any. A flagged flow is endorsed value by value; an irreversible
 * call is confirmed each time; data crossing from one app to another needs a share consent unless the
 * tenant turned that off or trusts every app involved.
 */
export function consentFor(policy: Policy, facts: CallFacts): ConsentNeed | null {
  const need = (kind: ConsentKind): ConsentNeed => ({
    kind,
    scopes: allowedScopes(kind),
    assessment: assess(facts, kind),
  });
  if (facts.requester) return need("collaboration");
  if (facts.violations.length > 0) return need("endorse");
  if (facts.irreversible) return need("irreversible");
  const trusted = new Set(policy.consent.trustedApps);
  const crossing = facts.origins.filter((o) => o !== facts.app);
  const allTrusted = trusted.has(facts.app) && crossing.every((o) => trusted.has(o));
  if (crossing.length > 0 && policy.consent.dataShare && !allTrusted) return need("data_share");
  return null;
}

/**
 * `expected` only when the flow is part of the plan verified for this query and every value has the
 * integrity and confidentiality its argument demands; otherwise `warning`, with every reason.
 */
export function assess(facts: CallFacts, kind?: ConsentKind): Assessment {
  const reasons: string[] = [];
  for (const v of facts.violations) reasons.push(violationReason(v));
  if (!facts.inPlan) reasons.push(`the plan verified for this query did not call ${facts.tool}`);
  for (const r of facts.remedied ?? []) reasons.push(remediedReason(facts.tool, r));
  if (facts.plannedFrom === "apps" && kind === "app_selection") {
    // The planner's pick among apps may be an app's own wish.
    reasons.push(`the planner chose ${facts.tool} with app-written text in view`);
  } else if (facts.plannedFrom === "apps" && kind !== undefined) {
    reasons.push("this step was planned with text written by app developers in view, which may ask for it");
  }
  if (facts.requester) {
    // An agent wrote this request, not the plan: never `expected`, whatever the agent read.
    reasons.push(`the request was written by the app ${facts.requester.app}'s own model, not by the plan`);
    if (facts.requester.read.length) {
      reasons.push(`the app ${facts.requester.app}'s model read ${facts.requester.read.join(", ")}`);
    }
  }
  return { verdict: reasons.length ? "warning" : "expected", reasons: [...new Set(reasons)] };
}

function remediedReason(tool: string, r: Remedied): string {
  const what = `"${r.argument}" of ${tool}`;
  return r.by === "match"
    ? `${what} was chosen by content you read, among ${r.candidates} trusted values (${r.source})`
    : `${what} was written from content you read; every link and address in it is one you trust`;
}

function violationReason(v: Violation): string {
  const what = v.argument === null ? `whether ${v.tool} runs` : `"${v.argument}" of ${v.tool}`;
  if (v.rule === "confidentiality") {
    return `${what} would receive ${v.label.confidentiality} data; the app is cleared only up to ${v.required.maxConfidentiality}`;
  }
  const causes = [...new Set(v.sources.map(sourceReason))];
  return `${what} ${causes.length ? causes.join("; ") : "comes from data you did not provide"}`;
}

function sourceReason(s: Source): string {
  switch (s.kind) {
    case "literal":
      return "was chosen by the planner, not stated by you";
    case "tool":
      return `derives from content returned by ${s.tool}, which may be untrusted`;
    case "artifact":
      return `derives from saved data (${s.artifact}) of integrity ${s.label.integrity}`;
    case "guard":
      return `depends on a decision made on untrusted data (${s.path})`;
  }
}
