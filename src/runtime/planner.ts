import { valueProblems } from "../apps/schemas.ts";
import type { ArtifactMetadata, ServingAppInfo } from "../contracts.ts";
import { checkPlan, type PlanCheck, type Policy, planJsonSchema } from "../policy/index.ts";
import type { PlanningSnapshot } from "./snapshot.ts";

/**
 * The planner's input is built from trusted input only: the query, the approved catalog (reviewed
 * app metadata), artifact metadata (never values) and the session's earlier queries. Nothing an app
 * returned ever enters it. One call; one structured retry where policy allows, for static flow
 * rejections only, carrying a correction built from policy and plan structure alone. The model is
 * a port: the hub passes a function that calls the tenant's planner model.
 */

/** A chat message as the planner port takes it (the model layer's shape, narrowed to what planning sends). */
export type PlannerMessage = { role: "system" | "user" | "assistant"; content: string };

/** The planner model: messages and the plan's JSON Schema in, its text and token use out. */
export type PlannerModel = (
  messages: PlannerMessage[],
  schema: Record<string, unknown>,
) => Promise<{ text: string; tokens: number }>;

const SYSTEM = `You are the planner of Lattice. Write ONE complete plan, as JSON, for the user's query, before anything runs.
You never see tool results: later steps refer to earlier results by name ({"ref": name, "path": [...]}).
Use only the tools listed (as "app.functionality") and only the artifacts listed (retrieve by id).
Use a "qllm" step to read, summarise, extract or compute from data; give it a self-contained prompt and an object JSON Schema.
Show the user what they asked for with "display" steps. Literals you write yourself are trusted only if the user stated them.`;

export function plannerMessages(input: {
  query: string;
  apps: readonly ServingAppInfo[];
  artifacts: readonly ArtifactMetadata[];
  earlierQueries: readonly string[];
}): PlannerMessage[] {
  // One entry per app (its description once), each functionality named as the plan calls it.
  const apps = input.apps.map((app) => ({
    app: app.name,
    description: app.manifest.description,
    tools: app.manifest.functionalities.map((fn) => ({
      tool: `${app.name}.${fn.name}`,
      description: fn.description,
      request: fn.request,
      response: fn.response,
      ...(fn.irreversible && { irreversible: true }),
    })),
  }));
  const artifacts = input.artifacts.map(
    ({ id, name, schema, intent, semantics, query, label, createdAt }) => ({
      id,
      name,
      schema,
      intent,
      semantics,
      query,
      label,
      createdAt,
    }),
  );
  const context = { apps, artifacts, earlierQueries: input.earlierQueries };
  // The query comes last and alone, so the user's words are never mixed up with app metadata.
  return [
    { role: "system", content: SYSTEM },
    {
      role: "user",
      content: `Context (tools, saved artifacts, earlier queries):\n${JSON.stringify(context)}`,
    },
    { role: "user", content: input.query },
  ];
}

export type PlanningOutcome =
  | { state: "planned"; check: Extract<PlanCheck, { stage: "verify" }>; attempts: number; tokens: number }
  | {
      state: "invalid";
      check: Extract<PlanCheck, { stage: "validate" }> | null;
      reason: string;
      tokens: number;
    }
  | { state: "rejected"; check: Extract<PlanCheck, { stage: "verify" }>; attempts: number; tokens: number };

export async function plan(input: {
  query: string;
  policy: Policy;
  snapshot: PlanningSnapshot;
  messages: PlannerMessage[];
  model: PlannerModel;
}): Promise<PlanningOutcome> {
  const messages = [...input.messages];
  let tokens = 0;
  const maxAttempts = 1 + input.policy.selfCorrection;
  for (let attempt = 1; ; attempt++) {
    const answer = await input.model(messages, { ...planJsonSchema() });
    tokens += answer.tokens;
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      return { state: "invalid", check: null, reason: "the planner's answer is not JSON", tokens };
    }
    const check = checkPlan(json, {
      policy: input.policy,
      query: input.query,
      catalog: input.snapshot.catalog,
      artifacts: input.snapshot.artifacts,
      checkSchema: valueProblems,
    });
    if (check.stage === "validate")
      return { state: "invalid", check, reason: "the plan failed validation", tokens };
    if (check.ok) return { state: "planned", check, attempts: attempt, tokens };
    if (attempt >= maxAttempts || !check.verdict.correction)
      return { state: "rejected", check, attempts: attempt, tokens };
    // The one retry: the planner sees its own plan and a correction made of policy and structure only.
    messages.push(
      { role: "assistant", content: answer.text },
      {
        role: "user",
        content: `The plan was rejected by the information-flow check:\n${JSON.stringify(check.verdict.correction)}\nWrite a corrected plan.`,
      },
    );
  }
}
