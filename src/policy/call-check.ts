/**
 * One tool call against its endpoint policy: the rule the verifier applies to every planned call,
 * the hub's gate to every call it is about to make with runtime labels, and the collaboration relay
 * to a spoke's request. Written once here so the three cannot drift apart.
 */
import type { CatalogEntry } from "./context.ts";
import { argumentRequirement, callRequirement, clearanceOf, pcRequirement } from "./endpoints.ts";
import {
  exceedsConfidentiality,
  type FlowRule,
  flowViolations,
  type Label,
  type Requirement,
} from "./labels.ts";
import type { Lattices } from "./lattice.ts";
import type { Policy } from "./policy-schema.ts";
import { sinkLabel } from "./runtime-labels.ts";
import { type Remedy, remedyOf } from "./vouch.ts";

export interface SinkFinding {
  readonly rule: FlowRule;
  /** Under `onViolation: "ask"` the user may endorse the flow, except above the app's clearance (a cap). */
  readonly endorsable: boolean;
  /**
   * An integrity finding on an argument with a remedy the tenant allows (vouch.ts): the plan may
   * run, and the gate decides on the concrete value; unmet, it is the finding it would have been.
   */
  readonly deferred: boolean;
}

export interface CallFinding extends SinkFinding {
  /** The argument, or null for the call itself (its pc). */
  readonly argument: string | null;
  readonly label: Label;
  readonly required: Requirement;
}

const NONE: readonly SinkFinding[] = [];

/** What breaks where `label` reaches an endpoint requiring `required`. */
export function sinkFindings(
  l: Lattices,
  policy: Policy,
  entry: CatalogEntry | undefined,
  label: Label,
  required: Requirement,
  remedy: Remedy | null = null,
): readonly SinkFinding[] {
  const rules = flowViolations(l, label, required);
  if (rules.length === 0) return NONE;
  const ask = policy.onViolation === "ask";
  const cap = { maxConfidentiality: clearanceOf(l, entry), minIntegrity: l.integrity.bottom };
  return rules.map((rule) => ({
    rule,
    endorsable: ask && !(rule === "confidentiality" && exceedsConfidentiality(l, label, cap)),
    deferred: rule === "integrity" && remedy !== null,
  }));
}

/**
 * A call with runtime labels: the pc against the call's requirement (`pcRequirement`), then each
 * argument (with the pc's confidentiality) against its own.
 */
export function checkCall(input: {
  readonly policy: Policy;
  readonly lattices: Lattices;
  readonly tool: string;
  readonly entry: CatalogEntry | undefined;
  readonly pc: Label;
  readonly args: Readonly<Record<string, Label>>;
}): CallFinding[] {
  const { policy, lattices: l, tool, entry, pc } = input;
  const found: CallFinding[] = [];
  const add = (argument: string | null, label: Label, required: Requirement) => {
    for (const f of sinkFindings(l, policy, entry, label, required, remedyOf(policy, tool, argument)))
      found.push({ ...f, argument, label, required });
  };
  const required = Object.fromEntries(
    Object.keys(input.args).map((name) => [name, argumentRequirement(policy, l, tool, entry, name)]),
  );
  add(
    null,
    pc,
    pcRequirement(policy, l, tool, callRequirement(policy, l, tool, entry), Object.values(required)),
  );
  for (const [name, label] of Object.entries(input.args)) {
    add(name, sinkLabel(l, label, pc), required[name]!);
  }
  return found;
}
