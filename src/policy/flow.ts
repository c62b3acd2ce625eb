/**
 * Flow nodes record where a static label came from, so a violation can name its causes. Every
 * expression and step result is one node whose parents are its inputs; a reference reuses the
 * bound node. The graph is therefore linear in the plan's size, and causes are searched only
 * when a check fails.
 */

import { breaks, type FlowRule, type Label, type Requirement } from "./labels.ts";
import type { Lattices } from "./lattice.ts";

/** A leaf cause of a label (or a guard a step depends on). Paths are plan paths; no values. */
export type Source =
  /** a plan literal the user did not state (stated ones have the bottom label and never cause a violation) */
  | { readonly kind: "literal"; readonly path: string; readonly label: Label }
  /** an artifact read by a retrieve step */
  | { readonly kind: "artifact"; readonly path: string; readonly label: Label; readonly artifact: string }
  /** the output baseline of a tool step (the app's declared or the tenant's output label) */
  | { readonly kind: "tool"; readonly path: string; readonly label: Label; readonly tool: string }
  /** the guard of an enclosing condition (`…if`) or loop (`…over`): an implicit flow */
  | { readonly kind: "guard"; readonly path: string; readonly label: Label };

export interface Flow {
  readonly label: Label;
  readonly parents: readonly Flow[];
  readonly source?: Source;
}

export function leaf(label: Label, source?: Source): Flow {
  return source ? { label, parents: [], source } : { label, parents: [] };
}

/** Enough for a person or the planner to see the cause; bounds the work per violation. */
export const MAX_SOURCES = 16;
const MAX_VISITS = 512;

/**
 * The sources that make `flow` break `rule` of `req`. A node whose label does not break the rule
 * cannot have a cause that does (join is monotone), so the search prunes there.
 */
export function causes(
  l: Lattices,
  flow: Flow,
  req: Requirement,
  rule: FlowRule,
): { sources: Source[]; truncated: boolean } {
  const sources: Source[] = [];
  const seen = new Set<Flow>();
  const stack: Flow[] = [flow];
  let visits = 0;
  while (stack.length > 0) {
    const node = stack.pop() as Flow;
    if (seen.has(node) || !breaks(l, node.label, req, rule)) continue;
    seen.add(node);
    if (++visits > MAX_VISITS || sources.length >= MAX_SOURCES) return { sources, truncated: true };
    if (node.source) sources.push(node.source);
    for (let i = node.parents.length - 1; i >= 0; i--) stack.push(node.parents[i] as Flow);
  }
  return { sources, truncated: false };
}

/** A flow the policy forbids, with what caused it (DSL.md, "Information flow"). */
export interface Violation {
  /** The tool step's path, which is its id (e.g. `steps[3].then[0]`). */
  readonly path: string;
  /** The step's `out` name. */
  readonly stepOut: string;
  readonly tool: string;
  /** The argument, or null for the call itself (its pc: the call depends on a guard). */
  readonly argument: string | null;
  readonly rule: FlowRule;
  /** The static label reaching the endpoint, pc included. */
  readonly label: Label;
  readonly required: Requirement;
  /** What caused the offending part of the label. */
  readonly sources: readonly Source[];
  readonly sourcesTruncated: boolean;
  /** Under `onViolation: "ask"` the flow pauses at run time for the user to endorse the value. */
  readonly endorsable: boolean;
  /** The plan may run: the gate checks the tenant's remedy on the concrete value (vouch.ts). */
  readonly deferred?: boolean;
}
