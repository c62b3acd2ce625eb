import type { CatalogEntry } from "../apps/catalog.ts";
import { schemaProblems } from "../apps/schemas.ts";
import type { ArtifactMetadata, ServingAppInfo } from "../contracts.ts";
import { isRecord, type Policy, type Step, type ValidPlan, type Verdict } from "../policy/index.ts";
import { selectTools } from "./catalog-select.ts";
import type { QueryError } from "./failure.ts";
import { PLANNER_REASONS, type PlannerModel, plan, plannerMessages, recentQueries } from "./planner.ts";
import type { QueryContext } from "./query.ts";
import type { Defences } from "./records.ts";
import { planningOf } from "./snapshot.ts";

/** What planning needs: trusted input only (the query, its session's earlier queries, the catalog, artifact metadata). */
export interface PlanningInput {
  query: string;
  earlierQueries: readonly string[];
  /** The tenant's catalog (what catalog mode plans against). */
  catalog: readonly CatalogEntry[];
  apps: readonly ServingAppInfo[];
  artifacts: readonly ArtifactMetadata[];
  policy: Policy;
  defences: Defences;
  /** The session's roles: which names its plans may call. */
  roles: readonly string[];
  model: PlannerModel;
}

/** What to record once planned: a failure, a rejection (the plan kept for the trace), or a plan to run. */
export type Planned =
  | { state: "invalid"; error: QueryError }
  | {
      state: "rejected" | "running";
      plan: ValidPlan;
      context: QueryContext;
      verdict: Verdict;
      error?: QueryError;
      attempts: number;
      tokens: number;
    };

/** The names a session's roles may call; null when one of its roles may call everything. */
export function allowedNames(policy: Policy, roles: readonly string[]): Set<string> | null {
  const names = new Set<string>();
  for (const role of roles) {
    const entries = policy.roles[role]?.entries;
    if (entries === "*") return null;
    for (const name of entries ?? []) names.add(name);
  }
  return names;
}

export async function planQuery(input: PlanningInput): Promise<Planned> {
  const { policy } = input;
  const mode = policy.planning.mode;
  const allowed = allowedNames(policy, input.roles);
  // Artifacts made under apps mode carry metadata a planner wrote with app text in view.
  const artifacts =
    mode === "catalog" ? input.artifacts.filter((a) => a.plannedIn === "catalog") : input.artifacts;
  const { snapshot, tools, appDescriptions } = planningOf({ ...input, artifacts, allowed });
  // The newest few, cut short: a long session's history would crowd out the catalog.
  const earlier = recentQueries(input.earlierQueries, policy.planning.earlierQueries);
  // Only catalog mode selects: there the names and descriptions are the admin's, never an app's.
  const shown = mode === "catalog" ? selectTools(tools, input.query, earlier.queries) : { tools, of: null };
  const outcome = await plan({
    query: input.query,
    policy,
    snapshot,
    messages: plannerMessages({
      mode,
      query: input.query,
      tools: shown.tools,
      appDescriptions,
      artifacts,
      earlierQueries: earlier.queries,
      earlierOmitted: earlier.omitted,
      selectedOf: shown.of,
    }),
    model: input.model,
  });
  if (outcome.state === "invalid") {
    // Only where roles hid names: was the plan's unknown name one the roles forbid?
    const everything =
      allowed && outcome.json !== undefined ? planningOf({ ...input, artifacts, allowed: null }) : null;
    const forbidden = everything
      ? calledNames(outcome.json).filter(
          (name) => name in everything.snapshot.targets && !(name in snapshot.targets),
        )
      : [];
    if (forbidden.length) {
      return {
        state: "invalid",
        error: {
          code: "role_forbidden",
          message: `this user's roles (${input.roles.join(", ")}) may not use ${forbidden.join(", ")}`,
          details: forbidden,
        },
      };
    }
    return {
      state: "invalid",
      error: { code: "invalid_plan", message: outcome.reason, details: outcome.check?.errors ?? [] },
    };
  }
  const badSchemas = qllmSchemaProblems(outcome.check.plan.steps, "steps");
  if (badSchemas.length) {
    return {
      state: "invalid",
      error: { code: "invalid_plan", message: PLANNER_REASONS.qllmSchema, details: badSchemas },
    };
  }
  const { verdict } = outcome.check;
  const context: QueryContext = { policy, snapshot, defences: input.defences };
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

/** The tool names anywhere in an unvalidated plan (for a clearer error than "unknown tool"). */
function calledNames(json: unknown, into = new Set<string>()): string[] {
  if (Array.isArray(json)) for (const item of json) calledNames(item, into);
  else if (isRecord(json)) {
    if (json.kind === "tool" && typeof json.tool === "string") into.add(json.tool);
    for (const value of Object.values(json)) calledNames(value, into);
  }
  return [...into];
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
