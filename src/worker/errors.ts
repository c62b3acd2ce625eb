import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error type of the API. Thrown anywhere in the Worker, mapped to the error shape once (app.ts). */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly details: unknown;
  /** Response headers the error needs (a 429's `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    details?: unknown,
    cause?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const conflict = (message: string, details?: unknown) =>
  new ApiError(409, "conflict", message, details);
export const invalid = (message: string, details?: unknown) =>
  new ApiError(400, "invalid_request", message, details);

/** Default codes for statuses that arrive without one of ours (Hono's HTTPException, body limit). */
export function codeForStatus(status: number): string {
  const codes: Record<number, string> = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    502: "upstream_failed",
    504: "upstream_timeout",
  };
  return codes[status] ?? (status >= 500 ? "internal_error" : "invalid_request");
}

/** A daily quota of the tenant's is used up: 429 naming the quota, retry at the next UTC day. */
export const quotaExceeded = (q: { quota: string; limit: number; retryAfterSeconds: number }) =>
  new ApiError(
    429,
    "quota_exceeded",
    `the tenant's daily ${q.quota} quota (${q.limit}) is used up`,
    { quota: q.quota, limit: q.limit },
    undefined,
    { "Retry-After": String(q.retryAfterSeconds) },
  );
