/**
 * The visor's deterministic rules (AgentVisor's S, T and I), trapping every tool call an app's own
 * model proposes. They read only trusted input — the hub's request, the app's manifest — and the
 * proposed call; never app content. A violation becomes a semantic exception the model may
 * correct once. Its wording names the rule, reviewed names (the functionality, a manifest tool) and
 * argument paths, never a value or a name the model made up: the refusal becomes the step's failure.
 */
import { scalars, valuesAt } from "./destinations.ts";
import { callDestinations, namedDestinations } from "./inferred-destinations.ts";
import { isUnreadable, type Reference, references } from "./references.ts";

export type VisorCheck = "S" | "T" | "I";

export interface SemanticException {
  readonly type: VisorCheck;
  readonly rationale: string;
  readonly constraint: string;
  readonly allowedGoal: string;
}

/** A tool as the visor knows it: from the reviewed manifest, or the hub's word on a collaboration target. */
export interface VisorTool {
  readonly name: string;
  readonly irreversible: boolean;
  /** Argument paths where data, messages or money go; undefined: not declared. */
  readonly destinations?: readonly string[];
  /** Its arguments' JSON Schema: destinations are inferred from it too (inferred-destinations.ts). */
  readonly parameters?: unknown;
  /** An admin confirmed `destinations` as its whole list at review: nothing is inferred. */
  readonly confirmed?: boolean;
}

export interface VisorInput {
  readonly functionality: {
    readonly name: string;
    readonly irreversible: boolean;
    /** Request paths that are destinations (the catalog entry's and the manifest's): what I pins calls to. */
    readonly destinations: readonly string[];
  };
  /** The app's internal tools as its (reviewed) manifest declares them, and the collaboration tools. */
  readonly tools: readonly VisorTool[];
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
    rationale: `${tool.name} would be a second irreversible action under one confirmed request`,
    constraint: "at most one irreversible action per request",
  };
}

/** S: the tool belongs to the app and to this functionality; an irreversible tool only under an irreversible one. */
function suitability({ functionality, tools, allowed, call }: VisorInput) {
  const tool = tools.find((t) => t.name === call.tool);
  if (!tool || !allowed.includes(call.tool)) {
    return {
      // The proposed name is the model's: only a manifest's tool is named back.
      rationale: `${tool ? tool.name : "the proposed tool"} is not a tool of ${functionality.name}`,
      constraint: `use only: ${allowed.join(", ") || "no tools"}`,
    };
  }
  if (tool.irreversible && !functionality.irreversible) {
    return {
      rationale: `${tool.name} cannot be undone, and ${functionality.name} was not confirmed as an irreversible action`,
      constraint: "use only tools that read or can be undone",
    };
  }
  return null;
}

/**
 * Where a call sends something: its tool's declared destinations and those the rule infers from
 * its schema, names and values (inferred-destinations.ts), reversible or not. An unknown tool
 * (reached only with S off) has none.
 */
function destinationsOf({ tools, call }: VisorInput): Array<{ path: string; value: string | number }> {
  const tool = tools.find((t) => t.name === call.tool);
  return tool ? callDestinations(tool, call.args) : [];
}

/**
 * T: the call's goal fits the request — every destination is one the user's own words name: a
 * whole trusted value or a word of one (an address inside "mail Dana at dana@x.test"), numbers by
 * value. Untrusted request data (say, a mail body the hub passed on) names no destination.
 */
function taint(input: VisorInput) {
  const named = namedIn(input.trusted);
  for (const { path, value } of destinationsOf(input)) {
    if (named(value)) continue;
    return {
      rationale: `${toolName(input)} would send to a destination at "${path}" that the request does not name`,
      constraint: `"${path}" must be a destination the user named in the request`,
    };
  }
  return null;
}

/**
 * What the user's words name: each whole value and each word, case-insensitive; numbers by value;
 * and a string whose every reference (references.ts: whole links, hosts, addresses, phone numbers…)
 * the user's words write, none unreadable, so `Eve <eve@evil.test>` is named by "mail
 * eve@evil.test" but `<secret>.evil.test` or another path on a named host is not (#43).
 */
function namedIn(trusted: Readonly<Record<string, unknown>>): (value: string | number) => boolean {
  const texts = new Set<string>();
  const numbers = new Set<number>();
  const refs = new Set<Reference>();
  const add = (word: string) => {
    texts.add(word.toLowerCase());
    const n = Number(word);
    if (word.trim() !== "" && Number.isFinite(n)) numbers.add(n);
  };
  for (const item of scalars(trusted)) {
    if (typeof item === "number") {
      numbers.add(item);
      continue;
    }
    add(item);
    for (const ref of references(item)) refs.add(ref);
    for (const word of item.split(/[\s,;()<>"'[\]{}]+/)) {
      if (!word) continue;
      add(word);
      add(word.replace(/[.:!?]+$/, "")); // "…to dana@x.test." ends a sentence, not the address
    }
  }
  const byReferences = (v: string) => {
    const written = references(v);
    return written.size > 0 && [...written].every((r) => !isUnreadable(r) && refs.has(r));
  };
  return (v) => (typeof v === "number" ? numbers.has(v) : texts.has(v.toLowerCase()) || byReferences(v));
}

/**
 * I: every argument the request pinned keeps the request's value, and where the functionality
 * declares destinations, every destination of the call (declared or inferred) is one the request gave.
 */
function integrity({ request, call, functionality, tools }: VisorInput) {
  for (const [name, value] of Object.entries(call.args)) {
    if (!Object.hasOwn(request, name)) continue;
    const pinned = request[name];
    if (pinned !== null && typeof pinned === "object") continue;
    if (pinned !== value) {
      // `name` is one of the request's own arguments (the plan's); the values stay out.
      return {
        rationale: `${toolName({ tools, call })} changes "${name}", which the request fixed`,
        constraint: `"${name}" must keep the request's value`,
      };
    }
  }
  const given = functionality.destinations.flatMap((path) => valuesAt(request, path));
  const tool = tools.find((t) => t.name === call.tool);
  if (!given.length || !tool) return null;
  const same = (a: string | number, b: string | number) =>
    String(a).toLowerCase() === String(b).toLowerCase();
  // A string inferred for the references it writes is the request's when each of them is one the
  // request's destinations write (`Dana <dana@x.test>` for `dana@x.test`), none unreadable.
  const givenRefs = new Set<Reference>(
    given.flatMap((g) => (typeof g === "string" ? [...references(g)] : [])),
  );
  const byReferences = (v: string | number) => {
    if (typeof v !== "string") return false;
    const written = references(v);
    return written.size > 0 && [...written].every((r) => !isUnreadable(r) && givenRefs.has(r));
  };
  const stray = namedDestinations(tool, call.args).find(
    ({ value }) => !given.some((g) => same(g, value)) && !byReferences(value),
  );
  if (!stray) return null;
  return {
    rationale: `${toolName({ tools, call })} would send "${stray.path}" to a destination the request did not give`,
    constraint: `"${stray.path}" must be one of the request's destinations (${functionality.destinations.join(", ")})`,
  };
}

/** The request's argument names, not its values: the model holds the request already. */
function allowedGoal({ functionality, request }: VisorInput): string {
  const names = Object.keys(request);
  return `do only what ${functionality.name} was asked${names.length ? `, with the request's ${names.join(", ")}` : ""}`;
}

/** The call's tool as the manifest names it; a name the model made up is not repeated. */
function toolName({ tools, call }: Pick<VisorInput, "tools" | "call">): string {
  return tools.find((t) => t.name === call.tool)?.name ?? "the proposed tool";
}
