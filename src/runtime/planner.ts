import { valueProblems } from "../apps/schemas.ts";
import type { ArtifactMetadata } from "../contracts.ts";
import {
  checkPlan,
  decodeStrictPlan,
  type PlanCheck,
  type PlanError,
  type Policy,
  planJsonSchema,
  strictPlanJsonSchema,
  type ValidationRule,
} from "../policy/index.ts";
import { failure, type Result } from "../result.ts";
import { clip, resultType, signatureOf } from "./signatures.ts";
import type { PlannerTool, PlanningSnapshot } from "./snapshot.ts";

/**
 * The planner's input is built from trusted input only: the query, what it may call, artifact
 * metadata (never values) and the session's earlier queries. Nothing an app returned ever enters it.
 * One call; one structured retry where policy allows, for static flow
 * rejections only, carrying a correction built from policy and plan structure alone. The model is
 * a port: the hub passes a function that calls the tenant's planner model.
 */

/** A chat message as the planner port takes it (the model layer's shape, narrowed to what planning sends). */
export type PlannerMessage = { role: "system" | "user" | "assistant"; content: string };

/** The plan's JSON Schema, and its strict form (strict-plan.ts) for providers held to closed schemas. */
export interface PlanSchemas {
  plan: Record<string, unknown>;
  strict: Record<string, unknown>;
}

/**
 * What the planner model answered: its text and token use; `form: "strict"` when it was held to
 * the strict schema (the text is then decoded back to the DSL); how the answer ended (unset: stop).
 */
export interface PlannerAnswer {
  text: string;
  tokens: number;
  form?: "strict" | "plain";
  finish?: "stop" | "length" | "refusal" | "tool_calls";
}

/** The planner model: messages and the plan's JSON Schemas in, its answer out. */
export type PlannerModel = (messages: PlannerMessage[], schemas: PlanSchemas) => Promise<PlannerAnswer>;

const RULES = `You never see tool results: later steps refer to earlier results by name ({"ref": name, "path": [...]}).
Use a "qllm" step to read, summarise, extract or compute from data; give it a self-contained prompt and an object JSON Schema.
To pick, order or filter items by a field (the cheapest, the earliest, those in a city the user named), use a "select" step, never a "qllm": it compares the field at the path "by" (all numbers, or all strings such as ISO dates) with "pick" "min", "max", "asc" or "desc", keeps items whose field at a "where" path equals a value, and reads no other text; "pick": "all" only filters. A "select" over an object reads its entries {"key": name, "value": item}.
Show the user what they asked for with "display" steps.
Each callable is listed as name(arg: type, optional?: type) -> result: pass its arguments by these names in "args", and reach result fields by these names in "path". string(email) is a format, string(/re/) a pattern, int(1..9) a range, "a"|"b" the allowed values, T[] a list, /* */ a note; [irreversible] marks what cannot be undone.`;

const SYSTEM = {
  catalog: `You are the planner of Lattice. Write ONE complete plan, as JSON, for the user's query, before anything runs.
Use only the functionalities listed (by their catalog name; the system picks the app that serves each) and only the artifacts listed (retrieve by id).
${RULES} [N apps] marks a functionality N apps serve: to compare them, give its tool step "providers": "all" (not on [irreversible] ones); it then runs on each app and its result is an object with one answer per app. To compare those answers, "select" over it by ["value", <field>]: the pick's "key" names the app.`,
  apps: `You are the planner of Lattice. Write ONE complete plan, as JSON, for the user's query, before anything runs.
Use only the tools listed (as "app.functionality") and only the artifacts listed (retrieve by id).
${RULES} Literals you write yourself are trusted only if the user stated them.`,
};

/** Each earlier query is cut to this many characters, and all of them to about this many in all. */
const EARLIER_CHARS = 300;
const EARLIER_TOTAL = 1500;

/**
 * The session's context the planner reads: the newest `keep` earlier queries (the policy's bound),
 * each cut to EARLIER_CHARS, newest first until EARLIER_TOTAL, so a long session costs a bounded
 * prompt. `omitted` counts the older ones left out (none when the policy shows no history).
 */
export function recentQueries(all: readonly string[], keep: number): { queries: string[]; omitted: number } {
  if (keep <= 0) return { queries: [], omitted: 0 };
  const queries: string[] = [];
  let used = 0;
  for (const text of all.slice(-keep).reverse()) {
    if (used >= EARLIER_TOTAL) break;
    const cut = clip(text, EARLIER_CHARS);
    queries.unshift(cut);
    used += cut.length;
  }
  return { queries, omitted: all.length - queries.length };
}

/**
 * The planner's messages. Catalog mode: the catalog entries (the tenant admin's words), never an
 * app's. Apps mode: each app's reviewed description and functionalities. Both: each callable as a
 * typed signature (signatures.ts), artifact metadata as earlier plans wrote it (no label, no time:
 * nothing that depends on what tools returned), and the session's last earlier queries.
 */
export function plannerMessages(input: {
  mode: "catalog" | "apps";
  query: string;
  tools: readonly PlannerTool[];
  appDescriptions: Readonly<Record<string, string>>;
  artifacts: readonly ArtifactMetadata[];
  earlierQueries: readonly string[];
  /** Older earlier queries left out of `earlierQueries`. */
  earlierOmitted?: number;
  /** The catalog's size when `tools` is a selection of it (catalog-select.ts). */
  selectedOf?: number | null;
}): PlannerMessage[] {
  const artifacts = input.artifacts.map(({ id, name, schema, intent, semantics, query }) => ({
    id,
    name,
    ...(schema === null || schema === undefined ? {} : { schema: resultType(schema) }),
    intent,
    semantics,
    // The query that made it, cut as earlier queries are: up to 100 artifacts come along.
    query: clip(query, EARLIER_CHARS),
  }));
  const callable =
    input.mode === "catalog"
      ? { functionalities: input.tools.map(signatureOf) }
      : {
          // One entry per app (its description once), each functionality named as the plan calls it.
          apps: Object.entries(input.appDescriptions).map(([app, description]) => ({
            app,
            description,
            tools: input.tools.filter((t) => t.tool.startsWith(`${app}.`)).map(signatureOf),
          })),
        };
  const omitted = input.earlierOmitted ? { earlierQueriesOmitted: input.earlierOmitted } : {};
  const context = { ...callable, artifacts, earlierQueries: input.earlierQueries, ...omitted };
  const listed =
    input.mode === "apps"
      ? "tools"
      : input.selectedOf
        ? `functionalities: the ${input.tools.length} of the catalog's ${input.selectedOf} that match the query`
        : "functionalities";
  // The query comes last and alone, so the user's words are never mixed up with anything else.
  return [
    { role: "system", content: SYSTEM[input.mode] },
    {
      role: "user",
      content: `Context (${listed}, saved artifacts, earlier queries${input.earlierOmitted ? ", older ones omitted" : ""}):\n${JSON.stringify(context)}`,
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
      /** The planner's answer as parsed, when it was JSON. */
      json?: unknown;
    }
  | { state: "rejected"; check: Extract<PlanCheck, { stage: "verify" }>; attempts: number; tokens: number };

/** Rules of the plan's shape: a plan breaking only these may come out right if simply asked again. */
const SHAPE_RULES: ReadonlySet<ValidationRule> = new Set([
  "json",
  "type",
  "required",
  "unknown_field",
  "unknown_kind",
  "unknown_op",
  "invalid_value",
  "predicate_misplaced",
]);

/** Why planning gave no plan, in Lattice's words: a closed set, so the display boundary can tell them. */
export const PLANNER_REASONS = {
  declined: "the planner declined to write a plan",
  cutOff: "the planner's answer was cut off at its output token limit",
  toolCall: "the planner answered with a tool call, not a plan",
  notJson: "the planner's answer is not JSON",
  invalid: "the plan failed validation",
  qllmSchema: "a q-llm step's schema is not usable",
} as const;

/** Why an answer is not a plan: its errors (a strict plan that fails to decode), whether asking again may help. */
interface NotAPlan {
  errors?: readonly PlanError[];
  retry: boolean;
  json?: unknown;
}

type Read = Result<{ json: unknown }, "not_a_plan", NotAPlan>;

const notAPlan = (reason: string, details: NotAPlan) => failure("not_a_plan", reason, details);

/** The answer as a DSL document, or why not (and whether asking again, unchanged, may help). */
function readAnswer(answer: PlannerAnswer): Read {
  if (answer.finish === "refusal") return notAPlan(PLANNER_REASONS.declined, { retry: false });
  if (answer.finish === "length") return notAPlan(PLANNER_REASONS.cutOff, { retry: true });
  if (answer.finish === "tool_calls") return notAPlan(PLANNER_REASONS.toolCall, { retry: true });
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    return notAPlan(PLANNER_REASONS.notJson, { retry: true });
  }
  if (answer.form !== "strict") return { ok: true, json };
  const decoded = decodeStrictPlan(json);
  return decoded.ok
    ? { ok: true, json: decoded.plan }
    : notAPlan(PLANNER_REASONS.invalid, { errors: decoded.details, retry: true, json });
}

/**
 * One call; one structured retry where policy allows, for static flow rejections only (with a
 * correction), and one repair-free retry (the same messages again, no feedback) for an answer
 * that is not a plan by its shape: not JSON, cut off, a tool call, or breaking the DSL's structure.
 */
export async function plan(input: {
  query: string;
  policy: Policy;
  snapshot: PlanningSnapshot;
  messages: PlannerMessage[];
  model: PlannerModel;
}): Promise<PlanningOutcome> {
  const messages = [...input.messages];
  const schemas = { plan: planJsonSchema(), strict: strictPlanJsonSchema() };
  let tokens = 0;
  let calls = 0;
  let askedAgain = false;
  const maxAttempts = 1 + input.policy.selfCorrection;
  for (let attempt = 1; ; attempt++) {
    const answer = await input.model(messages, schemas);
    calls++;
    tokens += answer.tokens;
    const read = readAnswer(answer);
    if (!read.ok) {
      const { errors, retry, json } = read.details;
      if (retry && !askedAgain) {
        askedAgain = true;
        attempt--;
        continue;
      }
      const check = errors ? { stage: "validate" as const, ok: false as const, errors } : null;
      return { state: "invalid", check, reason: read.message, tokens, ...(json !== undefined && { json }) };
    }
    const json = read.json;
    const check = checkPlan(json, {
      policy: input.policy,
      query: input.query,
      catalog: input.snapshot.catalog,
      artifacts: input.snapshot.artifacts,
      checkSchema: valueProblems,
      trustedPlanner: input.snapshot.mode === "catalog",
    });
    if (check.stage === "validate") {
      if (!askedAgain && check.errors.every((e) => SHAPE_RULES.has(e.rule))) {
        askedAgain = true;
        attempt--;
        continue;
      }
      return { state: "invalid", check, reason: PLANNER_REASONS.invalid, tokens, json };
    }
    if (check.ok) return { state: "planned", check, attempts: calls, tokens };
    if (attempt >= maxAttempts || !check.verdict.correction)
      return { state: "rejected", check, attempts: calls, tokens };
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
