import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every code an API error carries, listed in the OpenAPI document (the error schemas' `code` enum),
 * so a client can switch on them. A code not here cannot be constructed.
 */
export const API_ERROR_CODES = [
  // General, and the defaults of codeForStatus.
  "invalid_request",
  "invalid_json",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "quota_exceeded",
  "overloaded",
  "upstream_failed",
  "upstream_timeout",
  "not_configured",
  "internal_error",
  // Sessions and queries (the hub's refusals of a new query).
  "session_not_found",
  "query_not_found",
  "idempotency_conflict",
  "invalid_options",
  "invalid_picks",
  "too_many_streams",
  // The chat adapters (OpenAI-compatible, AI SDK).
  "user_mismatch",
  "user_required",
  "no_user_message",
  "empty_message",
  "message_too_long",
  "model_not_found",
  "plain_model_off",
  "too_many_approvals",
  "invalid_approval",
  // A model's failure, passed on by lattice-plain (ModelErrorCode: plain.ts type-checks it is here).
  "model_timeout",
  "model_failed",
  "model_not_configured",
] as const satisfies readonly string[];

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export interface ApiErrorOptions {
  message: string;
  details?: unknown;
  /** The error that caused this one, kept for logs (never shown). */
  cause?: unknown;
  /** Response headers the error needs (a 429's `Retry-After`). */
  headers?: Record<string, string>;
}

/** The one error type of the API. Thrown anywhere in the Worker, mapped to the error shape once (app.ts). */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ApiErrorCode;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, code: ApiErrorCode, options: ApiErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; details?: unknown };
}

export const notFound = (what: string) => new ApiError(404, "not_found", { message: `${what} not found` });
export const conflict = (message: string, details?: unknown) =>
  new ApiError(409, "conflict", { message, details });
/** An `If-Match` that names another version than the one in force: read again, then retry. */
export const preconditionFailed = (message: string, details?: unknown) =>
  new ApiError(412, "precondition_failed", { message, details });
export const invalid = (message: string, details?: unknown) =>
  new ApiError(400, "invalid_request", { message, details });

/** Default codes for statuses that arrive without one of ours (Hono's HTTPException, body limit). */
export function codeForStatus(status: number): ApiErrorCode {
  const codes: Record<number, ApiErrorCode> = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    502: "upstream_failed",
    503: "overloaded",
    504: "upstream_timeout",
  };
  return codes[status] ?? (status >= 500 ? "internal_error" : "invalid_request");
}

/** A daily quota of the tenant's is used up: 429 naming the quota, retry at the next UTC day. */
export const quotaExceeded = (q: { quota: string; limit: number; retryAfterSeconds: number }) =>
  new ApiError(429, "quota_exceeded", {
    message: `the tenant's daily ${q.quota} quota (${q.limit}) is used up`,
    details: { quota: q.quota, limit: q.limit },
    headers: { "Retry-After": String(q.retryAfterSeconds) },
  });
