import type { ModelErrorCode, QllmErrorCode, SpokeErrorCode } from "../contracts.ts";
import type { FlowRule, VisorCheck } from "../policy/index.ts";
import { CodedError } from "../result.ts";

/** Why a query ends early. Closed: the runtime's own codes and those its effects report. */
export type RuntimeErrorCode =
  | "invalid_plan"
  | "plan_rejected"
  | "role_forbidden"
  | "unknown_tool"
  | "unknown_artifact"
  | "artifact_gone"
  | "flow_violation"
  | "consent_denied"
  | "consent_expired"
  | "interrupted_irreversible_call"
  | "loop_over_non_array"
  | "loop_too_long"
  | "select_over_invalid"
  | "select_too_long"
  | "select_field_missing"
  | "select_field_type"
  | "select_empty"
  | "unbound_name"
  | "projection_failed"
  | "too_many_calls"
  | "work_limit"
  | "corrupt_state"
  | "internal_error"
  | SpokeErrorCode
  | QllmErrorCode
  | ModelErrorCode;

/**
 * What a failure may show besides its code, each field set by Lattice from its own records: the
 * plan step (its path in the plan), the name the plan called there, the visor rule that refused;
 * for a flow violation the argument whose label broke its endpoint (null: the call itself, which
 * depends on a guard) and which half of the label broke.
 */
export interface FailureFacts {
  step?: string;
  tool?: string;
  rule?: VisorCheck;
  argument?: string | null;
  flow?: FlowRule;
}

/**
 * A runtime failure: the query ends (fail-closed); never fed back to the planner. Its message and
 * details are for the runtime alone (they may quote what an app or a model said); a frontend and
 * the audit log see the code, Lattice's words for it and the facts (shown-error.ts).
 */
export class StepFailure extends CodedError<RuntimeErrorCode> {
  readonly facts: FailureFacts;

  constructor(
    code: RuntimeErrorCode,
    message: string,
    options: { details?: unknown; cause?: unknown; facts?: FailureFacts } = {},
  ) {
    super(code, message, options);
    this.facts = options.facts ?? {};
  }
}

/** A failed query as the runtime knows it; shown only through `shownError`. */
export interface QueryError {
  code: RuntimeErrorCode;
  message: string;
  details?: unknown;
  facts?: FailureFacts;
}

export function queryError(error: CodedError<RuntimeErrorCode>): QueryError {
  const facts = error instanceof StepFailure && Object.keys(error.facts).length ? error.facts : undefined;
  return {
    code: error.code,
    message: error.message,
    ...(error.details !== undefined && { details: error.details }),
    ...(facts && { facts }),
  };
}
