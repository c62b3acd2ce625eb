/**
 * Label rules for the interpreter. Labels never depend on values, only on where values came
 * from, so the labels these give at run time are exactly the verifier's static ones (the verifier
 * inlines some of them for speed; a property test checks the two agree): what was verified is
 * what runs.
 */
import type { Expr, JsonValue, Pred, SelectStep } from "./dsl.ts";
import { bottomLabel, join, joinAll, type Label, topLabel } from "./labels.ts";
import type { Lattices } from "./lattice.ts";
import { chosenLabel, literalLabel, type QueryIndex } from "./provenance.ts";

export { literalLabel };

/**
 * A projection (`ref` + `path`) carries the label of the whole value — a field is as secret and as
 * untrusted as its record — joined with the path's own: which field or list entry to take is a
 * choice the planner made (`[7, "email"]` picks one contact of many).
 */
export function projectionLabel(
  l: Lattices,
  whole: Label,
  path: readonly (string | number)[],
  q: QueryIndex,
): Label {
  return path.length ? join(l, whole, chosenLabel(l, path, q)) : whole;
}

/** A constructed value (`obj`, `arr`) is the join of its parts. */
export function constructedLabel(l: Lattices, parts: Iterable<Label>): Label {
  return joinAll(l, parts);
}

/** tool → join(output baseline, argument labels, pc). */
export function toolOutputLabel(l: Lattices, baseline: Label, args: Iterable<Label>, pc: Label): Label {
  return join(l, join(l, baseline, joinAll(l, args)), pc);
}

/** qllm → join(input labels, pc): an LLM can never raise integrity or lower confidentiality. */
export function qllmOutputLabel(l: Lattices, inputs: Iterable<Label>, pc: Label): Label {
  return join(l, joinAll(l, inputs), pc);
}

/**
 * What a q-llm step's instructions add to its output: the planner wrote the prompt and the schema,
 * so an obedient model can put the planner's words in the answer; they count as literals.
 */
export function qllmInstructionLabel(
  l: Lattices,
  step: { prompt: string; schema: unknown },
  q: QueryIndex,
): Label {
  return join(l, literalLabel(l, step.prompt, q), literalLabel(l, step.schema as JsonValue, q));
}

/** The loop variable → label of `over` joined with pc. */
export function loopVarLabel(l: Lattices, over: Label, pc: Label): Label {
  return join(l, over, pc);
}

/** Inside a condition or loop: pc = join(pc, guard label). */
export function guardedPc(l: Lattices, pc: Label, guard: Label): Label {
  return join(l, pc, guard);
}

/** A loop's `out` → its `collect` joined with the loop's pc (how many items it has depends on `over`). */
export function loopOutLabel(l: Lattices, collect: Label, loopPc: Label): Label {
  return join(l, collect, loopPc);
}

/**
 * The paths a `select` step compares and filters by: literals the planner chose, like a
 * projection's path (which field decides is a choice). `pick` is a closed word, like a predicate's
 * `op`, and carries no label.
 */
export function selectPathsLabel(l: Lattices, step: SelectStep, q: QueryIndex): Label {
  let label = step.by?.length ? chosenLabel(l, step.by, q) : bottomLabel(l);
  for (const w of step.where ?? []) if (w.path.length) label = join(l, label, chosenLabel(l, w.path, q));
  return label;
}

/**
 * select → join(`over`, each `where` value, the paths, pc). The result is built from the list's
 * items, so it is as secret and as untrusted as the list: a provider can still lie in its typed
 * field. What no longer happens is a model reading the items' text to choose: which item is
 * picked depends only on the compared fields' values, so a note cannot steer it. Labels cannot
 * show that difference (a q-llm's pick has the same join); the step's semantics carry it.
 */
export function selectOutputLabel(l: Lattices, parts: Iterable<Label>, pc: Label): Label {
  return join(l, joinAll(l, parts), pc);
}

/**
 * What reaches a tool argument: the value's label joined with the pc's confidentiality (the value,
 * given in a branch, tells the app what the branch decided on). The pc's integrity is judged once,
 * at the call itself (`callRequirement`): whether the call happens is what a guard on untrusted data
 * steers, while a value is as untrusted as its own sources, and every value computed under that
 * guard carries the pc already. So a tenant that lets content decide whether a call runs (the
 * tool's `minInputIntegrity`) still holds each argument to its own floor.
 */
export function sinkLabel(l: Lattices, value: Label, pc: Label): Label {
  return join(l, value, { confidentiality: pc.confidentiality, integrity: l.integrity.top });
}

/**
 * What reaches the display: the value joined with pc and with its title, a string the planner
 * wrote (and so, unless the user stated it, possibly planted by app metadata).
 */
export function displayLabel(
  l: Lattices,
  value: Label,
  pc: Label,
  title: string | undefined,
  q: QueryIndex,
): Label {
  const shown = join(l, value, pc);
  return title === undefined ? shown : join(l, shown, literalLabel(l, title, q));
}

/** The pc at the start of a plan: the query's label, (bottom, top). */
export function initialPc(l: Lattices): Label {
  return bottomLabel(l);
}

/**
 * The label of an expression, given the labels of bound names. An unbound name (impossible in a
 * validated plan) fails closed to the top label.
 */
export function exprLabel(
  l: Lattices,
  expr: Expr,
  lookup: (name: string) => Label | undefined,
  q: QueryIndex,
): Label {
  if ("lit" in expr) return literalLabel(l, expr.lit, q);
  if ("ref" in expr) return projectionLabel(l, lookup(expr.ref) ?? topLabel(l), expr.path ?? [], q);
  const parts = "obj" in expr ? Object.values(expr.obj) : expr.arr;
  const keys = "obj" in expr ? chosenLabel(l, Object.keys(expr.obj), q) : bottomLabel(l);
  return join(
    l,
    keys,
    constructedLabel(
      l,
      parts.map((p) => exprLabel(l, p, lookup, q)),
    ),
  );
}

/** A guard's label: the join of every expression in the predicate. */
export function predLabel(
  l: Lattices,
  pred: Pred,
  lookup: (name: string) => Label | undefined,
  q: QueryIndex,
): Label {
  switch (pred.op) {
    case "and":
    case "or":
      return joinAll(
        l,
        pred.args.map((p) => predLabel(l, p, lookup, q)),
      );
    case "not":
      return predLabel(l, pred.arg, lookup, q);
    case "exists":
      return exprLabel(l, pred.value, lookup, q);
    default:
      return join(l, exprLabel(l, pred.left, lookup, q), exprLabel(l, pred.right, lookup, q));
  }
}
