import * as z from "zod";
import { valueProblems } from "../apps/schemas.ts";
import { decode } from "../decode.ts";
import {
  checkPlan,
  type Lattices,
  type Policy,
  parsePolicy,
  policyLattices,
  type ValidPlan,
  type Verdict,
} from "../policy/index.ts";
import { StepFailure } from "./failure.ts";
import type { AppPicks } from "./picks.ts";
import type { Defences } from "./records.ts";
import { type PlanningSnapshot, SnapshotSchema } from "./snapshot.ts";

/**
 * A query's stored context: everything execution needs, fixed once planned. Model credentials never
 * enter it (the policy is stored without `models`; spokes resolve their model from the tenant), and
 * loading it re-parses the policy and re-verifies the plan, so what runs is what was verified.
 */
export interface QueryContext {
  policy: Policy;
  snapshot: PlanningSnapshot;
  defences: Defences;
}

const Check = z.boolean();
const StoredContext = z
  .object({
    policy: z.unknown(),
    snapshot: SnapshotSchema,
    defences: z.object({
      ifc: Check,
      consent: Check,
      isolation: Check,
      visor: z.object({ S: Check, T: Check, I: Check }),
      // Queries stored before MCP pins existed ran with every defence on.
      pins: Check.default(true),
      // Likewise before the display boundary's control existed.
      boundary: Check.default(true),
      // Queries stored before grants named their artifacts keep the broad origin they were asked under.
      namedArtifacts: Check.default(false),
      // Queries stored before standing rules existed had none to scope.
      ruleScope: Check.default(true),
      // Queries stored before endorsements were asked first keep asking them at their steps only.
      endorseFirst: Check.default(false),
    }),
  })
  .strict();

/** The context as stored: the policy less its model settings (API keys live only in the tenant). */
export function storedContext(context: QueryContext): string {
  return JSON.stringify({ ...context, policy: { ...context.policy, models: {} } });
}

export interface LoadedQuery {
  text: string;
  /** The apps the frontend picked for the query (stored with it at admission). */
  picks: AppPicks;
  context: QueryContext;
  lattices: Lattices;
  plan: ValidPlan;
  verdict: Verdict;
}

/** Reads a planned query back as the verifier's own types; any mismatch is `corrupt_state`. */
export function loadQuery(row: {
  text: string;
  picks?: AppPicks;
  plan: string | null;
  context: string | null;
}): LoadedQuery {
  if (row.plan === null || row.context === null) {
    throw new StepFailure("corrupt_state", "a running query has no stored plan");
  }
  const stored = decode(StoredContext, row.context, "the query's context");
  const parsed = parsePolicy(stored.policy);
  if (!parsed.ok) {
    throw new StepFailure("corrupt_state", "the query's stored policy no longer parses", {
      details: parsed.details,
    });
  }
  const context: QueryContext = {
    policy: parsed.policy,
    snapshot: stored.snapshot,
    defences: stored.defences,
  };
  const check = checkPlan(decode(z.unknown(), row.plan, "the query's plan"), {
    policy: context.policy,
    query: row.text,
    catalog: context.snapshot.catalog,
    artifacts: context.snapshot.artifacts,
    checkSchema: valueProblems,
    trustedPlanner: context.snapshot.mode === "catalog",
  });
  if (check.stage === "validate") {
    throw new StepFailure("corrupt_state", "the stored plan no longer validates", { details: check.errors });
  }
  // What verified then verifies now (it is deterministic); otherwise something changed underneath.
  if (!check.ok && context.defences.ifc) {
    throw new StepFailure("corrupt_state", "the stored plan no longer passes the flow check");
  }
  return {
    text: row.text,
    picks: row.picks ?? {},
    context,
    lattices: policyLattices(context.policy),
    plan: check.plan,
    verdict: check.verdict,
  };
}

/**
 * A query just planned, as `loadQuery` would read it back from what was stored: the plan and verdict
 * the planning's own check produced (checking them again would repeat a deterministic check on the
 * same plan), under the very policy they were checked with, since labels are interned per policy's
 * lattices. Its model settings, which loading drops, nothing here reads. A test holds the two equal.
 */
export function plannedQuery(
  query: { text: string; picks: AppPicks },
  context: QueryContext,
  plan: ValidPlan,
  verdict: Verdict,
): LoadedQuery {
  const { text, picks } = query;
  return { text, picks, context, lattices: policyLattices(context.policy), plan, verdict };
}
