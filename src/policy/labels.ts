/**
 * Labels and flows. A label is a (confidentiality, integrity) pair of level names. Combining values
 * joins their labels: the result is as secret as the most secret part and as trustworthy as the
 * least trustworthy part.
 *
 * Level names come from stored data (artifacts, app declarations) that may predate a policy change,
 * so every function here fails closed on a name its lattice does not know: an unknown
 * confidentiality counts as the top, an unknown integrity as the bottom, and an unknown
 * requirement as the strictest one.
 */
import type { Label, Lattices } from "./lattice.ts";

export type { Label } from "./lattice.ts";

/** What an endpoint (a tool argument, a call, the display) accepts. */
export interface Requirement {
  readonly maxConfidentiality: string;
  readonly minIntegrity: string;
}

export type FlowRule = "confidentiality" | "integrity";

/** Rank of a value's confidentiality; unknown → top. */
function confOf(l: Lattices, level: string): number {
  const r = l.confidentiality.rank(level);
  return r < 0 ? l.confidentiality.levels.length - 1 : r;
}

/** Rank of a value's integrity; unknown → bottom. */
function integOf(l: Lattices, level: string): number {
  return Math.max(l.integrity.rank(level), 0);
}

/** The interned label with these ranks. */
function at(l: Lattices, c: number, i: number): Label {
  return (l.labels[c] as readonly Label[])[i] as Label;
}

/** The label of what the user said: nothing secret, fully trusted. The identity of join. */
export function bottomLabel(l: Lattices): Label {
  return at(l, 0, l.integrity.levels.length - 1);
}

/** The most restrictive label: top secret, untrusted. */
export function topLabel(l: Lattices): Label {
  return at(l, l.confidentiality.levels.length - 1, 0);
}

/** The canonical (interned) form of a label: unknown level names replaced fail-closed. */
export function normalizeLabel(l: Lattices, a: Label): Label {
  return at(l, confOf(l, a.confidentiality), integOf(l, a.integrity));
}

/** Join: confidentiality = max, integrity = min. */
export function join(l: Lattices, a: Label, b: Label): Label {
  if (a === b) return a;
  const c = Math.max(confOf(l, a.confidentiality), confOf(l, b.confidentiality));
  const i = Math.min(integOf(l, a.integrity), integOf(l, b.integrity));
  return at(l, c, i);
}

/** Join of any number of labels; the join of none is the bottom label. */
export function joinAll(l: Lattices, labels: Iterable<Label>): Label {
  let acc = bottomLabel(l);
  for (const a of labels) acc = join(l, acc, a);
  return acc;
}

/** a ⊑ b: b is at least as secret and at most as trusted as a (information may flow from a to b). */
export function flowsTo(l: Lattices, a: Label, b: Label): boolean {
  return (
    confOf(l, a.confidentiality) <= confOf(l, b.confidentiality) &&
    integOf(l, a.integrity) >= integOf(l, b.integrity)
  );
}

export function labelEquals(l: Lattices, a: Label, b: Label): boolean {
  return flowsTo(l, a, b) && flowsTo(l, b, a);
}

/** Does the label exceed the endpoint's confidentiality cap? Unknown cap → bottom (strictest). */
export function exceedsConfidentiality(l: Lattices, label: Label, req: Requirement): boolean {
  const cap = Math.max(l.confidentiality.rank(req.maxConfidentiality), 0);
  return confOf(l, label.confidentiality) > cap;
}

/** Is a value less trusted than the endpoint demands? Unknown floor → top (strictest). */
export function belowIntegrity(l: Lattices, label: Label, req: Requirement): boolean {
  const floor = l.integrity.rank(req.minIntegrity);
  return integOf(l, label.integrity) < (floor < 0 ? l.integrity.levels.length - 1 : floor);
}

/** The rules a flow of `label` into an endpoint breaks; empty when `L.conf ≤ max` and `L.integ ≥ min`. */
export function flowViolations(l: Lattices, label: Label, req: Requirement): readonly FlowRule[] {
  const conf = exceedsConfidentiality(l, label, req);
  const integ = belowIntegrity(l, label, req);
  if (!conf && !integ) return NONE;
  const rules: FlowRule[] = [];
  if (conf) rules.push("confidentiality");
  if (integ) rules.push("integrity");
  return rules;
}

const NONE: readonly FlowRule[] = Object.freeze([]);

export function flowAllowed(l: Lattices, label: Label, req: Requirement): boolean {
  return !exceedsConfidentiality(l, label, req) && !belowIntegrity(l, label, req);
}

/** Does `label` break `rule` of `req`? (Monotone in the label, which the source search relies on.) */
export function breaks(l: Lattices, label: Label, req: Requirement, rule: FlowRule): boolean {
  return rule === "confidentiality" ? exceedsConfidentiality(l, label, req) : belowIntegrity(l, label, req);
}

/** The lower of two confidentiality levels (used to cap a policy by an app's clearance). */
export function minConfidentiality(l: Lattices, a: string, b: string): string {
  // An unknown name counts as the bottom: the strictest cap.
  const r = Math.min(Math.max(l.confidentiality.rank(a), 0), Math.max(l.confidentiality.rank(b), 0));
  return l.confidentiality.levels[r] as string;
}
