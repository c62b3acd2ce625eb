import { isRecord } from "../policy/index.ts";
import type { FailureFacts, QueryError, RuntimeErrorCode } from "./failure.ts";
import { PLANNER_REASONS } from "./planner.ts";

/**
 * The display boundary for failures. What a failed query shows a frontend (its JSON, the chat
 * adapters) and writes to the audit log is rebuilt here from its code: Lattice's own words for
 * that code, from one closed table, and the facts Lattice recorded (the step, the name the plan
 * called, the visor rule, a flow violation's argument and flow), the name checked against the
 * query's reviewed names and the argument against that name's request schema. The free-text
 * message of a failure never leaves: whatever an origin puts into it (an app's words, a value an
 * agent proposed) stays in the runtime. Planning's own findings (the validator's errors and the
 * verifier's violations, over a plan written before any app ran) keep their details.
 */

export const ERROR_WORDS: Record<RuntimeErrorCode, string> = {
  invalid_plan: "the planner did not write a usable plan",
  plan_rejected: "the plan would let data flow where policy forbids",
  role_forbidden: "this user's roles may not use what the plan calls",
  unknown_tool: "no app serves a name the plan calls",
  unknown_artifact: "the plan reads saved data that was not shown to the planner",
  artifact_gone: "saved data the plan reads no longer exists",
  flow_violation: "a value's label breaks the called functionality's policy",
  consent_denied: "the user declined a consent",
  consent_expired: "nobody answered a consent in time",
  interrupted_irreversible_call:
    "an irreversible call was interrupted; it was not repeated, check the app before retrying",
  loop_over_non_array: "a loop's input is not a list",
  loop_too_long: "a loop's input is longer than the policy allows",
  select_over_invalid: "a selection's input is neither a list nor an object",
  select_too_long: "a selection's input has more items than Lattice compares",
  select_field_missing: "an item lacks the field a selection compares or filters by",
  select_field_type: "the field a selection compares is not all numbers or all strings",
  select_empty: "no item was left to pick from",
  unbound_name: "the plan read a name that has no value",
  projection_failed: "the plan read a field its data does not have",
  too_many_calls: "the query reached its limit of calls",
  work_limit: "the query reached its limit of work",
  corrupt_state: "the query's stored state could not be read back",
  internal_error: "the query failed unexpectedly",
  app_unavailable: "the app is not available",
  app_changed: "the app changed since the plan was verified",
  unknown_functionality: "the app does not serve this functionality",
  invalid_request: "the request does not match the functionality's schema",
  invalid_response: "the app's answer does not match its declared schema",
  egress_refused: "the app's address is not one Lattice may call",
  app_timeout: "the app did not answer in time",
  app_error: "the app failed",
  app_response_too_large: "the app's answer is too large",
  app_response_not_json: "the app's answer is not JSON",
  agent_not_configured: "no model is configured for this agentic app",
  agent_time_limit: "the app's agent ran out of time",
  agent_token_limit: "the app's agent used up its token budget",
  agent_turn_limit: "the app's agent did not finish within its turns",
  agent_too_many_calls: "the app's agent proposed too many calls at once",
  visor_refused: "the visor refused a call the app's agent proposed",
  model_timeout: "a model did not answer in time",
  model_failed: "a model call failed",
  model_not_configured: "no model is configured for this role",
  quota_exceeded: "the tenant's daily quota is used up",
  tool_drift: "the app's MCP server changed its tools since approval; an admin must review the change",
  tool_error: "the app's tool reported an error",
  authorization_required: "the app needs the user to sign in to it",
  invalid_model_output: "the q-llm's answer was not usable",
  schema_not_strict: "a q-llm step's schema cannot be sent to this model",
};

/** Codes whose details are planning's findings over the plan: shown as planning made them. */
const PLANNING_CODES: ReadonlySet<string> = new Set(["invalid_plan", "plan_rejected", "role_forbidden"]);

/** Lattice's own wordings beyond the table: why planning gave no plan. */
const PLANNING_WORDS: ReadonlySet<string> = new Set(Object.values(PLANNER_REASONS));

declare const shown: unique symbol;
/** An error fit to leave: only `shownError` makes one (the hub stores and audits nothing else). */
export type ShownError = { code: string; message: string; details?: unknown } & { readonly [shown]: true };

/**
 * The names the query's plan may call: the only tool names a failure may show. As a map (`planCalls`),
 * each with its request schema's property names: the only arguments a failure may show.
 */
export type ShownNames = ReadonlySet<string> | ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The error as it may leave. `names`: what the query's plan may call (ShownNames). `boundary:
 * false` is the control run's (QueryOptions): the error as the runtime holds it.
 */
export function shownError(
  error: QueryError | { code: string; message: string; details?: unknown },
  names: ShownNames,
  boundary = true,
): ShownError {
  if (!boundary) return error as unknown as ShownError;
  const code = Object.hasOwn(ERROR_WORDS, error.code) ? (error.code as RuntimeErrorCode) : "internal_error";
  const message =
    code === "invalid_plan" && PLANNING_WORDS.has(error.message) ? error.message : ERROR_WORDS[code];
  const details = PLANNING_CODES.has(code) ? error.details : factsOf(error, names);
  return (details === undefined ? { code, message } : { code, message, details }) as ShownError;
}

/**
 * The facts as shown: a step key, a name the plan may call, a visor rule, an argument of that name's
 * request schema (or null: the call itself), a flow rule; anything else is dropped.
 */
function factsOf(error: { details?: unknown; facts?: FailureFacts }, names: ShownNames) {
  const given = "facts" in error ? error.facts : (error.details as FailureFacts | undefined);
  if (typeof given !== "object" || given === null) return undefined;
  const facts: FailureFacts = {};
  if (typeof given.step === "string" && STEP_KEY.test(given.step)) facts.step = given.step;
  if (typeof given.tool === "string" && names.has(given.tool)) facts.tool = given.tool;
  if (given.rule === "S" || given.rule === "T" || given.rule === "I") facts.rule = given.rule;
  if (given.argument === null && facts.tool) facts.argument = null;
  else if (typeof given.argument === "string" && facts.tool && names instanceof Map) {
    if (names.get(facts.tool)?.has(given.argument)) facts.argument = given.argument;
  }
  if (given.flow === "integrity" || given.flow === "confidentiality") facts.flow = given.flow;
  return Object.keys(facts).length ? facts : undefined;
}

/** A step's path in the plan, as the interpreter writes it (`steps[0].then[1]#2.body[0]`). */
const STEP_KEY = /^steps[A-Za-z0-9_.[\]#]{0,200}$/;

/**
 * The names a stored plan calls, each with the property names of its request schema in the query's
 * stored context (the snapshot the plan was verified against). A context that does not read back
 * leaves a name without arguments: a failure then shows the name alone.
 */
export function planCalls(plan: unknown, context: string | null): Map<string, ReadonlySet<string>> {
  let catalog: unknown;
  try {
    const parsed: unknown = context === null ? null : JSON.parse(context);
    catalog = isRecord(parsed) && isRecord(parsed.snapshot) ? parsed.snapshot.catalog : undefined;
  } catch {
    catalog = undefined;
  }
  const calls = new Map<string, ReadonlySet<string>>();
  for (const name of planNames(plan)) {
    const entry = isRecord(catalog) && Object.hasOwn(catalog, name) ? catalog[name] : undefined;
    const schema = isRecord(entry) ? entry.requestSchema : undefined;
    const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
    calls.set(name, new Set(Object.keys(properties)));
  }
  return calls;
}

/**
 * The names a stored plan calls, walked through its steps only (never into literals or schemas):
 * the plan passed validation, so each is a catalog entry or a reviewed app's functionality.
 */
export function planNames(plan: unknown, into = new Set<string>()): Set<string> {
  const steps = isRecord(plan) && Array.isArray(plan.steps) ? plan.steps : [];
  for (const step of steps) {
    if (!isRecord(step)) continue;
    if (step.kind === "tool" && typeof step.tool === "string") into.add(step.tool);
    for (const branch of ["then", "else", "body"])
      if (Array.isArray(step[branch])) planNames({ steps: step[branch] }, into);
  }
  return into;
}
