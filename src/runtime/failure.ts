import type { ModelErrorCode, QllmErrorCode, SpokeErrorCode } from "../contracts.ts";
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
  | "unbound_name"
  | "projection_failed"
  | "too_many_calls"
  | "work_limit"
  | "corrupt_state"
  | "internal_error"
  | SpokeErrorCode
  | QllmErrorCode
  | ModelErrorCode;

/** A runtime failure: the query ends (fail-closed); never fed back to the planner. */
export class StepFailure extends CodedError<RuntimeErrorCode> {}

/** What a failed query records and shows (API.md's error shape). */
export interface QueryError {
  code: RuntimeErrorCode;
  message: string;
  details?: unknown;
}

export function queryError(error: CodedError<RuntimeErrorCode>): QueryError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}
