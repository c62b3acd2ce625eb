/**
 * The visor's deterministic rules (AgentVisor's S, T and I), trapping every tool call an app's own
 * model proposes. They read only trusted input — the hub's request, the app's manifest — and the
 * proposed call; never app content. A violation becomes a semantic exception the model may
 * correct once.
 */

export type VisorCheck = "S" | "T" | "I";

export interface SemanticException {
  readonly type: VisorCheck;
  readonly rationale: string;
  readonly constraint: string;
  readonly allowedGoal: string;
}

export interface VisorInput {
  readonly functionality: { readonly name: string; readonly irreversible: boolean };
  /** The app's internal tools, as its (reviewed) manifest declares them. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly irreversible: boolean }>;
  /** The tools this functionality may use (manifest `agent.functionalities`). */
  readonly allowed: readonly string[];
  /** The hub's request as sent: the values a call must keep (I). */
  readonly request: Readonly<Record<string, unknown>>;
  /** The request's arguments of user integrity: the only source of destinations (T). */
  readonly trusted: Readonly<Record<string, unknown>>;
  readonly call: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> };
  /** Which checks run (all, except in ablation controls). */
  readonly checks: Readonly<Record<VisorCheck, boolean>>;
  /** Whether this request already made its one irreversible call (required: forgetting it must not turn the rule off). */
  readonly irreversibleDone: boolean;
}

/** Arguments that send something somewhere: their values must come from the request. */
const DESTINATION = /^(to|cc|bcc|recipients?|email|emails|iban|account|with|destination|address|user)$/i;

export function audit(input: VisorInput): SemanticException | null {
  const goal = allowedGoal(input);
  if (input.checks.S) {
    const found = suitability(input);
    if (found) return { type: "S", ...found, allowedGoal: goal };
  }
  if (input.checks.T) {
    const found = taint(input);
    if (found) return { type: "T", ...found, allowedGoal: goal };
  }
  if (input.checks.I) {
    const found = integrity(input);
    if (found) return { type: "I", ...found, allowedGoal: goal };
  }
  const second = secondIrreversible(input);
  return (
    second && {
      type: "S",
      ...second,
      allowedGoal: `finish ${input.functionality.name} with what has been done`,
    }
  );
}

/**
 * The user confirmed one irreversible action; a second one under the same request was never asked
 * for. Not part of the S ablation: it is what the confirmation meant, not a judgement of fit.
 */
function secondIrreversible({ tools, call, irreversibleDone }: VisorInput) {
  const tool = tools.find((t) => t.name === call.tool);
  if (!tool?.irreversible || !irreversibleDone) return null;
  return {
    rationale: `${call.tool} would be a second irreversible action under one confirmed request`,
    constraint: "at most one irreversible action per request",
  };
}

/** S: the tool belongs to the app and to this functionality; an irreversible tool only under an irreversible one. */
function suitability({ functionality, tools, allowed, call }: VisorInput) {
  const tool = tools.find((t) => t.name === call.tool);
  if (!tool || !allowed.includes(call.tool)) {
    return {
      rationale: `${call.tool} is not a tool of ${functionality.name}`,
      constraint: `use only: ${allowed.join(", ") || "no tools"}`,
    };
  }
  if (tool.irreversible && !functionality.irreversible) {
    return {
      rationale: `${call.tool} cannot be undone, and ${functionality.name} was not confirmed as an irreversible action`,
      constraint: "use only tools that read or can be undone",
    };
  }
  return null;
}

/**
 * T: the call's goal fits the request — every destination is one the user's own words name: a
 * whole trusted value or a word of one (an address inside "mail Dana at dana@x.test"). Untrusted
 * request data (say, a mail body the hub passed on) names no destination.
 */
function taint({ trusted, call }: VisorInput) {
  const named = new Set<string>();
  for (const text of strings(trusted)) {
    named.add(text.toLowerCase());
    for (const word of text.split(/[\s,;:()<>"'[\]{}]+/)) if (word) named.add(word.toLowerCase());
  }
  for (const [name, value] of Object.entries(call.args)) {
    if (!DESTINATION.test(name)) continue;
    for (const item of typeof value === "string" ? [value] : strings(value)) {
      if (item && named.has(item.toLowerCase())) continue;
      return {
        rationale: `${call.tool} would send to ${JSON.stringify(item)}, which the request does not name`,
        constraint: `"${name}" must be a destination the user named in the request`,
      };
    }
  }
  return null;
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** I: every argument the request pinned keeps the request's value. */
function integrity({ request, call }: VisorInput) {
  for (const [name, value] of Object.entries(call.args)) {
    if (!Object.hasOwn(request, name)) continue;
    const pinned = request[name];
    if (pinned !== null && typeof pinned === "object") continue;
    if (pinned !== value) {
      return {
        rationale: `${call.tool}.${name} is ${JSON.stringify(value)}, but the request fixed it to ${JSON.stringify(pinned)}`,
        constraint: `"${name}" must equal ${JSON.stringify(pinned)}`,
      };
    }
  }
  return null;
}

function allowedGoal({ functionality, request }: VisorInput): string {
  return `do only what ${functionality.name} was asked: ${JSON.stringify(request)}`;
}
