import {
  type Assessment,
  allowedScopes,
  assess,
  checkCall,
  displayRequirement,
  flowAllowed,
  highest,
  isRecord,
  type Label,
  type Lattices,
  type Policy,
  type Scope,
  type Step,
  type ValidPlan,
} from "../policy/index.ts";
import { type PlanningSnapshot, type Target, targetId } from "./snapshot.ts";

/**
 * A spoke's request for another app's functionality (IsolateGPT's ISC), under the policy a plan
 * step meets (`checkCall`). An agent wrote the request, so its values have the bottom integrity
 * and carry whatever the agent read. The user is asked, in order: the `collaboration` consent
 * (whether, and which app), an `endorse` consent for a flagged flow under `onViolation: ask`, an
 * `irreversible` consent for a target that cannot undo it; then the hub relays.
 */

/** Who asks: the app, what its model read (in the user's words) and those contents' confidentiality. */
export interface RelayAsker {
  app: string;
  read: readonly string[];
  carried: readonly string[];
}

export interface RelayInput {
  policy: Policy;
  lattices: Lattices;
  snapshot: PlanningSnapshot;
  plan: ValidPlan;
  /** False only in control runs (the information-flow defence off). */
  ifc: boolean;
  /** The shared name asked for: a catalog entry (catalog mode) or a category (apps mode). */
  functionality: string;
  asker: RelayAsker;
  request: unknown;
}

export interface CollaborationAssessment {
  /** The targets that may answer, as a consent lists them (each in the app's own words). */
  options: Array<{ tool: string; app: string; description: string }>;
  assessment: Assessment;
  scopes: Scope[];
}

/** Why no target may take the request: each refused target with the rule it breaks. */
export interface CollaborationRefusal {
  refused: string[];
}

/** The first consent of a relay, or why it is refused; null when nothing serves the name. */
export function assessCollaboration(
  input: RelayInput,
): CollaborationAssessment | CollaborationRefusal | null {
  const targets = targetsOf(input);
  if (!targets.length) return null;
  const refused: string[] = [];
  const flagged: string[] = [];
  const allowed = targets.filter((t) => {
    const found = findings(input, t);
    refused.push(...found.blocking);
    flagged.push(...found.flagged);
    return found.blocking.length === 0;
  });
  if (!allowed.length) return { refused };
  const base = assessRelay(input, allowed);
  return {
    options: allowed.map((t) => ({ tool: targetId(t), app: t.app, description: t.description })),
    assessment: { verdict: "warning", reasons: [...base.reasons, ...flagged] },
    scopes: allowedScopes("collaboration"),
  };
}

export type RelayNext =
  | { next: "ask"; kind: "endorse" | "irreversible"; assessment: Assessment; scopes: Scope[] }
  /** `carries`: the confidentiality of the relayed request and its answer, for the target's memory. */
  | { next: "relay"; carries: string }
  | { next: "refused"; refused: string[] };

/**
 * What the chosen target still needs once the user allowed the collaboration: the same checks
 * again (the choice may have been any offered target), then each consent not yet given.
 */
export function relayNext(
  input: RelayInput,
  target: Target,
  given: ReadonlySet<"endorse" | "irreversible">,
): RelayNext {
  const found = findings(input, target);
  if (found.blocking.length) return { next: "refused", refused: found.blocking };
  const base = assessRelay(input, [target]);
  if (found.flagged.length && !given.has("endorse")) {
    return {
      next: "ask",
      kind: "endorse",
      assessment: { verdict: "warning", reasons: [...found.flagged, ...base.reasons] },
      scopes: allowedScopes("endorse"),
    };
  }
  if (target.entry.irreversible && !given.has("irreversible")) {
    return {
      next: "ask",
      kind: "irreversible",
      assessment: { verdict: "warning", reasons: [`${target.app} cannot undo this`, ...base.reasons] },
      scopes: allowedScopes("irreversible"),
    };
  }
  const conf = input.lattices.confidentiality;
  const carries = highest(
    conf,
    [relayLabel(input).confidentiality, target.entry.output.confidentiality],
    conf.top,
  );
  return { next: "relay", carries };
}

/** The request as the user may see it in a consent: withheld above the display policy's cap. */
export function shownRequest(input: RelayInput): unknown {
  if (!input.ifc) return input.request;
  const label = relayLabel(input);
  return flowAllowed(input.lattices, label, displayRequirement(input.policy, input.lattices))
    ? input.request
    : { withheld: true, label };
}

/** The targets of every name whose choice is this functionality (its category, or its catalog entry). */
export function targetsOf(input: Pick<RelayInput, "snapshot" | "functionality">): Target[] {
  const { snapshot } = input;
  const targets = Object.entries(snapshot.targets)
    .filter(([name]) => (snapshot.choices[name] ?? name) === input.functionality)
    .flatMap(([, list]) => list);
  return [...new Map(targets.map((t) => [targetId(t), t])).values()];
}

/**
 * The request's label: the join of everything the asking agent read (a level this policy does not
 * know counts as the top; nothing reported, its app's clearance), with the bottom integrity.
 */
function relayLabel(input: RelayInput): Label {
  const conf = input.lattices.confidentiality;
  const fromEntry = Object.values(input.snapshot.targets)
    .flat()
    .find((t) => t.app === input.asker.app)?.entry;
  const confidentiality = highest(conf, input.asker.carried, fromEntry?.clearance ?? conf.top);
  return { confidentiality, integrity: input.lattices.integrity.bottom };
}

/** The flow check of one target: what refuses it outright, and what the user would have to endorse. */
function findings(input: RelayInput, target: Target): { blocking: string[]; flagged: string[] } {
  if (!input.ifc) return { blocking: [], flagged: [] };
  const label = relayLabel(input);
  const values = isRecord(input.request) ? input.request : { request: input.request };
  const found = checkCall({
    policy: input.policy,
    lattices: input.lattices,
    tool: target.tool,
    entry: target.entry,
    pc: label,
    args: Object.fromEntries(Object.keys(values).map((k) => [k, label])),
  });
  // An argument is named only if the entry declares it: the request's own keys are the agent's text.
  const declared = isRecord(target.entry.requestSchema.properties)
    ? target.entry.requestSchema.properties
    : {};
  const argument = (name: string | null) =>
    name === null
      ? "whether it runs"
      : Object.hasOwn(declared, name)
        ? `"${name}"`
        : "an undeclared argument";
  const why = (f: (typeof found)[number]) =>
    `${target.app}: ${argument(f.argument)} would take ${
      f.rule === "confidentiality"
        ? `${label.confidentiality} data (cleared for ${target.entry.clearance})`
        : "a value the agent wrote"
    }`;
  return {
    blocking: found.filter((f) => !f.endorsable).map(why),
    flagged: found.filter((f) => f.endorsable).map(why),
  };
}

/** The reasons every relay consent shows: never `expected`, the plan did not write this request. */
function assessRelay(input: RelayInput, targets: readonly Target[]): Assessment {
  const planned = plannedTools(input.plan.steps);
  return assess({
    tool: input.functionality,
    app: input.functionality,
    irreversible: targets.some((t) => t.entry.irreversible),
    violations: [],
    origins: [input.asker.app],
    inPlan: targets.some((t) => planned.has(t.tool)),
    requester: { app: input.asker.app, read: input.asker.read },
  });
}

/** Every name a plan's steps call, at any depth: what "the plan calls this functionality" means. */
function plannedTools(steps: readonly Step[], into = new Set<string>()): Set<string> {
  for (const step of steps) {
    if (step.kind === "tool") into.add(step.tool);
    else if (step.kind === "condition") {
      plannedTools(step.then, into);
      plannedTools(step.else, into);
    } else if (step.kind === "loop") plannedTools(step.body, into);
  }
  return into;
}
