import type { Manifest } from "../../apps/manifest.ts";
import { valueProblems } from "../../apps/schemas.ts";
import { type ChatMessage, complete, type ModelConfig, type ModelLimits } from "../../llm/index.ts";
import {
  type ArtifactIndex,
  type Catalog,
  checkPlan,
  type Label,
  type PlanCheck,
  type Policy,
  planJsonSchema,
  policyLattices,
} from "../../policy/index.ts";
import type { ArtifactMetadata } from "../artifacts/index.ts";

/**
 * The planner's input is built from trusted input only: the query, the approved catalog (reviewed
 * app metadata), artifact metadata (never values) and the session's earlier queries. Nothing an app
 * returned ever enters it. One call; one structured retry where policy allows, for static flow
 * rejections only, carrying a correction built from policy and plan structure alone.
 */

export interface ServingAppInfo {
  appId: string;
  name: string;
  version: number;
  clearance: string;
  manifest: Manifest;
}

/** What the plan was checked against, stored with the query so replays run against the same world. */
export interface PlanningSnapshot {
  catalog: Catalog;
  /** `app.functionality` → the app id that serves it. */
  apps: Record<string, string>;
  /** app id → the approved version the plan was checked against: the only one its calls may reach. */
  versions: Record<string, number>;
  artifacts: ArtifactIndex;
  /** `app.functionality` → its shared category (e.g. ride.quote), where the manifest names one. */
  categories: Record<string, string>;
  /** category → every approved functionality of it: the options of an app_selection consent. */
  alternatives: Record<string, Array<{ tool: string; app: string; description: string }>>;
}

export function snapshotOf(
  apps: ServingAppInfo[],
  artifacts: ArtifactMetadata[],
  policy: Policy,
): PlanningSnapshot {
  const l = policyLattices(policy);
  const catalog: Record<string, Catalog[string]> = {};
  const byTool: Record<string, string> = {};
  const categories: Record<string, string> = {};
  const versions: Record<string, number> = {};
  const alternatives: PlanningSnapshot["alternatives"] = {};
  for (const app of apps) {
    for (const fn of app.manifest.functionalities) {
      const key = `${app.name}.${fn.name}`;
      if (fn.category) {
        categories[key] = fn.category;
        const options = alternatives[fn.category] ?? [];
        options.push({ tool: key, app: app.name, description: fn.description });
        alternatives[fn.category] = options;
      }
      const output: Label = {
        confidentiality: fn.output.confidentiality,
        integrity: fn.output.integrity ?? l.integrity.bottom,
      };
      catalog[key] = {
        irreversible: fn.irreversible,
        output,
        clearance: app.clearance,
        requestSchema: fn.request,
      };
      byTool[key] = app.appId;
      versions[app.appId] = app.version;
    }
  }
  const index: Record<string, { label: Label }> = {};
  for (const a of artifacts) index[a.id] = { label: a.label };
  return { catalog, apps: byTool, versions, artifacts: index, categories, alternatives };
}

const SYSTEM = `You are the planner of Lattice. Write ONE complete plan, as JSON, for the user's query, before anything runs.
You never see tool results: later steps refer to earlier results by name ({"ref": name, "path": [...]}).
Use only the tools listed (as "app.functionality") and only the artifacts listed (retrieve by id).
Use a "qllm" step to read, summarise, extract or compute from data; give it a self-contained prompt and an object JSON Schema.
Show the user what they asked for with "display" steps. Literals you write yourself are trusted only if the user stated them.`;

export function plannerMessages(input: {
  query: string;
  apps: ServingAppInfo[];
  artifacts: ArtifactMetadata[];
  earlierQueries: string[];
}): ChatMessage[] {
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
  messages: ChatMessage[];
  model: ModelConfig;
  limits: ModelLimits;
}): Promise<PlanningOutcome> {
  const messages = [...input.messages];
  let tokens = 0;
  const maxAttempts = 1 + input.policy.selfCorrection;
  for (let attempt = 1; ; attempt++) {
    const answer = await complete(
      input.model,
      { role: "planner", messages, schema: { name: "plan", schema: { ...planJsonSchema() } } },
      input.limits,
    );
    tokens += answer.usage.inputTokens + answer.usage.outputTokens;
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
