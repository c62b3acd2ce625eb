import {
  type Assessment,
  allowedScopes,
  assess,
  type Lattices,
  type Scope,
  type Step,
  type ValidPlan,
} from "../policy/index.ts";
import { type PlanningSnapshot, targetId } from "./snapshot.ts";

export interface CollaborationAssessment {
  /** The targets that may answer, as a consent lists them (each in the app's own words). */
  options: Array<{ tool: string; app: string; description: string }>;
  assessment: Assessment;
  scopes: Scope[];
}

/**
 * What the user is told when a spoke asks for another app's functionality (by category): the apps
 * that serve it, and the hub's assessment — a warning when the plan never called it, when the asking
 * agent read untrusted content, or when a serving app is cleared below what the agent may carry.
 * Null when no approved app serves the category.
 */
export function assessCollaboration(input: {
  lattices: Lattices;
  snapshot: PlanningSnapshot;
  plan: ValidPlan;
  functionality: string;
  fromApp: string;
  readUntrusted: boolean;
}): CollaborationAssessment | null {
  const { snapshot, fromApp } = input;
  // The targets of every name whose choice is this functionality (its category, or its catalog entry).
  const targets = Object.entries(snapshot.targets)
    .filter(([name]) => (snapshot.choices[name] ?? name) === input.functionality)
    .flatMap(([, list]) => list);
  const unique = [...new Map(targets.map((t) => [targetId(t), t])).values()];
  if (!unique.length) return null;
  const options = unique.map((t) => ({
    tool: targetId(t),
    app: t.app,
    description: t.description,
    entry: t.entry,
    name: t.tool,
  }));
  const planned = plannedTools(input.plan.steps);
  const conf = input.lattices.confidentiality;
  // What the asking agent may carry: up to its own clearance and what its app returns.
  const fromEntry = Object.values(snapshot.targets)
    .flat()
    .find((t) => t.app === fromApp)?.entry;
  const higher = (a: string, b: string) => (conf.rank(a) >= conf.rank(b) ? a : b);
  const carried = fromEntry ? higher(fromEntry.clearance, fromEntry.output.confidentiality) : conf.top;
  const base = assess({
    tool: input.functionality,
    app: input.functionality,
    irreversible: options.some((o) => o.entry.irreversible),
    violations: [],
    origins: [fromApp],
    inPlan: options.some((o) => planned.has(o.name)),
    requester: { app: fromApp, readUntrusted: input.readUntrusted },
  });
  const reasons = options
    .filter((o) => conf.rank(o.entry.clearance) < conf.rank(carried))
    .map((o) => `${fromApp} may hold ${carried} data; ${o.app} is cleared only for ${o.entry.clearance}`);
  const assessment: Assessment = reasons.length
    ? { verdict: "warning", reasons: [...base.reasons, ...reasons] }
    : base;
  return {
    options: options.map(({ tool, app, description }) => ({ tool, app, description })),
    assessment,
    scopes: allowedScopes("collaboration"),
  };
}

/** Every tool a plan's steps call, at any depth: what "the plan calls this functionality" means. */
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
