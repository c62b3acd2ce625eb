import { schemaProblems } from "../apps/schemas.ts";
import type { ArtifactMetadata, ServingAppInfo } from "../contracts.ts";
import type { Policy, Step, Verdict } from "../policy/index.ts";
import type { QueryError } from "./failure.ts";
import { type PlannerModel, plan, plannerMessages } from "./planner.ts";
import type { QueryContext } from "./query.ts";
import type { Defences } from "./records.ts";
import { snapshotOf } from "./snapshot.ts";

/** What planning needs: trusted input only (the query, its session's earlier queries, the catalog, artifact metadata). */
export interface PlanningInput {
  query: string;
  earlierQueries: readonly string[];
  apps: readonly ServingAppInfo[];
  artifacts: readonly ArtifactMetadata[];
  policy: Policy;
  defences: Defences;
  model: PlannerModel;
}

/** What to record once planned: a failure, a rejection (the plan kept for the trace), or a plan to run. */
export type Planned =
  | { state: "invalid"; error: QueryError }
  | {
      state: "rejected" | "running";
      plan: unknown;
      context: QueryContext;
      verdict: Verdict;
      error?: QueryError;
      attempts: number;
      tokens: number;
    };

export async function planQuery(input: PlanningInput): Promise<Planned> {
  const snapshot = snapshotOf(input.apps, input.artifacts, input.policy);
  const outcome = await plan({
    query: input.query,
    policy: input.policy,
    snapshot,
    messages: plannerMessages(input),
    model: input.model,
  });
  if (outcome.state === "invalid") {
    return {
      state: "invalid",
      error: { code: "invalid_plan", message: outcome.reason, details: outcome.check?.errors ?? [] },
    };
  }
  const badSchemas = qllmSchemaProblems(outcome.check.plan.steps, "steps");
  if (badSchemas.length) {
    return {
      state: "invalid",
      error: { code: "invalid_plan", message: "a q-llm step's schema is not usable", details: badSchemas },
    };
  }
  const { verdict } = outcome.check;
  const context: QueryContext = { policy: input.policy, snapshot, defences: input.defences };
  const common = {
    plan: outcome.check.plan,
    context,
    verdict,
    attempts: outcome.attempts,
    tokens: outcome.tokens,
  };
  // With the information-flow defence off (a control run), a rejected plan runs anyway.
  if (outcome.state === "rejected" && input.defences.ifc) {
    return {
      state: "rejected",
      ...common,
      error: {
        code: "plan_rejected",
        message: "the plan would let data flow where policy forbids",
        details: verdict.violations,
      },
    };
  }
  return { state: "running", ...common };
}

/** The planner writes q-llm schemas: they get the same meta-check (and pattern bounds) as app schemas. */
function qllmSchemaProblems(
  steps: readonly Step[],
  path: string,
): Array<{ path: string; problems: string[] }> {
  return steps.flatMap((step, i) => {
    const at = `${path}[${i}]`;
    if (step.kind === "qllm") {
      const problems = schemaProblems(step.schema);
      return problems.length ? [{ path: at, problems }] : [];
    }
    if (step.kind === "condition") {
      return [...qllmSchemaProblems(step.then, `${at}.then`), ...qllmSchemaProblems(step.else, `${at}.else`)];
    }
    return step.kind === "loop" ? qllmSchemaProblems(step.body, `${at}.body`) : [];
  });
}
