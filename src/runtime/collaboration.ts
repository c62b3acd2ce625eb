import {
  type Assessment,
  allowedScopes,
  assess,
  checkCall,
  isRecord,
  type Lattices,
  type Policy,
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

/** Why no target may take the request: each refused target with the rule it breaks. */
export interface CollaborationRefusal {
  refused: string[];
}

/**
 * What the user is told when a spoke asks for another app's functionality (by catalog entry or
 * category), after the same policy check as a plan step (`checkCall`). An agent wrote the request,
 * so its values have the bottom integrity, and they may carry anything the agent could hold (up to
 * its clearance and its app's output level). A target above whose clearance that lies, or whose
 * floors it misses under `onViolation: reject`, is refused; under `ask` the flow shows as a warning
 * for the user to endorse with the concrete values. Null when nothing serves the name.
 */
export function assessCollaboration(input: {
  policy: Policy;
  lattices: Lattices;
  snapshot: PlanningSnapshot;
  plan: ValidPlan;
  /** False only in control runs (the information-flow defence off). */
  ifc: boolean;
  functionality: string;
  fromApp: string;
  request: unknown;
  readUntrusted: boolean;
}): CollaborationAssessment | CollaborationRefusal | null {
  const { snapshot, fromApp } = input;
  const l = input.lattices;
  // The targets of every name whose choice is this functionality (its category, or its catalog entry).
  const targets = Object.entries(snapshot.targets)
    .filter(([name]) => (snapshot.choices[name] ?? name) === input.functionality)
    .flatMap(([, list]) => list);
  const unique = [...new Map(targets.map((t) => [targetId(t), t])).values()];
  if (!unique.length) return null;
  const conf = l.confidentiality;
  // What the asking agent may carry: up to its own clearance and what its app returns.
  const fromEntry = Object.values(snapshot.targets)
    .flat()
    .find((t) => t.app === fromApp)?.entry;
  const higher = (a: string, b: string) => (conf.rank(a) >= conf.rank(b) ? a : b);
  const carried = fromEntry ? higher(fromEntry.clearance, fromEntry.output.confidentiality) : conf.top;
  const label = { confidentiality: carried, integrity: l.integrity.bottom };
  const values = isRecord(input.request) ? input.request : { request: input.request };
  const refused: string[] = [];
  const flagged: string[] = [];
  const allowed = unique.filter((t) => {
    if (!input.ifc) return true;
    const findings = checkCall({
      policy: input.policy,
      lattices: l,
      tool: t.tool,
      entry: t.entry,
      pc: label,
      args: Object.fromEntries(Object.keys(values).map((k) => [k, label])),
    });
    const why = (f: (typeof findings)[number]) =>
      `${t.app}: ${f.argument === null ? "whether it runs" : `"${f.argument}"`} would take ${f.rule === "confidentiality" ? `${carried} data (cleared for ${t.entry.clearance})` : "a value the agent wrote"}`;
    if (findings.some((f) => !f.endorsable)) {
      refused.push(...findings.map(why));
      return false;
    }
    flagged.push(...findings.map(why));
    return true;
  });
  if (!allowed.length) return { refused };
  const planned = plannedTools(input.plan.steps);
  const base = assess({
    tool: input.functionality,
    app: input.functionality,
    irreversible: allowed.some((t) => t.entry.irreversible),
    violations: [],
    origins: [fromApp],
    inPlan: allowed.some((t) => planned.has(t.tool)),
    requester: { app: fromApp, readUntrusted: input.readUntrusted },
  });
  const irreversible = allowed.some((t) => t.entry.irreversible) ? ["the request cannot be undone"] : [];
  return {
    options: allowed.map((t) => ({ tool: targetId(t), app: t.app, description: t.description })),
    assessment: { verdict: "warning", reasons: [...base.reasons, ...irreversible, ...flagged] },
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
