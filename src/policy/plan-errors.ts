/** The structured errors of plan validation. Messages name plan structure only, never runtime values. */

export type ValidationRule =
  /** not a JSON document: a non-JSON value, a `__proto__` key, or nesting/size beyond the hard caps */
  | "json"
  /** a field of the wrong type */
  | "type"
  /** a required field is missing */
  | "required"
  /** a field the step kind (or expression form) does not have */
  | "unknown_field"
  /** a step `kind` the DSL does not have */
  | "unknown_kind"
  /** a predicate `op` the DSL does not have */
  | "unknown_op"
  /** a value outside its allowed set (empty string, negative path index, non-object q-llm schema…) */
  | "invalid_value"
  /** a predicate where an expression belongs (predicates live only in condition.if) */
  | "predicate_misplaced"
  | "name_empty"
  | "name_invalid"
  | "name_reserved"
  /** a name bound twice in the plan (single assignment, `out` and loop `as` alike) */
  | "name_duplicate"
  /** a reference to a name bound nowhere in the plan */
  | "ref_undefined"
  /** a reference to a name bound later, or inside a branch or loop body that does not enclose the use */
  | "ref_not_visible"
  /** a loop with `collect` but no `out`, or the reverse */
  | "loop_collect_out"
  | "artifact_unknown"
  | "tool_unknown"
  /** an argument the functionality's request schema does not allow (`additionalProperties: false`) */
  | "arg_unknown"
  /** an argument the request schema requires */
  | "arg_missing"
  /** a literal argument that does not match the request schema */
  | "arg_literal"
  /** `providers: "all"` where it is not allowed: apps mode, or an irreversible entry */
  | "providers_refused"
  /** a `select` that orders (`min`, `max`, `asc`, `desc`) without `by`, or filters only (`all`) with one */
  | "select_by"
  | "limit_steps"
  | "limit_depth"
  /** a bug in the validator itself; the plan is refused (fail closed) */
  | "internal";

export interface PlanError {
  readonly path: string;
  readonly rule: ValidationRule;
  readonly message: string;
}

/** At most this many errors are reported; a plan with more is still refused. */
export const MAX_ERRORS = 100;
