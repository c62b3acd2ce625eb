import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors.ts";

/**
 * Load shedding at the edge (issue #31): load is answered 503 `overloaded` with `Retry-After`, in the
 * API's error shape, never a 500. Two sources: a Durable Object that says it is overloaded (or that
 * the call may be retried), and this isolate's own bound on query starts in flight.
 */

/** Seconds a shed client waits: long enough for a queue to drain, short enough for a chat turn. */
export const RETRY_AFTER_SECONDS = 1;

export function overloaded(message: string, cause?: unknown): ApiError {
  return new ApiError(503, "overloaded", {
    message,
    cause,
    headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
  });
}

/**
 * An error a Durable Object call threw because of load, not because of the request: workerd marks an
 * object's refusal under load `overloaded`, and a transient failure (an object reset mid-call, which
 * callers see as "Network connection lost.") `retryable`. Such a request may be sent again; any
 * other error stays a 500.
 */
export function isLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const flags = error as Error & { overloaded?: unknown; retryable?: unknown };
  return flags.overloaded === true || flags.retryable === true;
}

/** The shed answer for a load error, or null for any other error. */
export function shedding(error: unknown): ApiError | null {
  if (!isLoadError(error)) return null;
  // Said so a client that started a query retries with the same Idempotency-Key, not a new query.
  return overloaded(
    "the service is overloaded; retry after Retry-After seconds (with the same Idempotency-Key)",
    error,
  );
}

/**
 * At most `max` requests in flight through this middleware in this isolate; more answer 503 at
 * once instead of queueing behind the objects they would wait on (a queue that grows without end
 * turns into timeouts and dropped connections). Per isolate: Workers spread load over isolates, so
 * the bound is on one isolate's share, not the deployment's.
 */
export function inFlightLimit(max: number, what: string) {
  let inFlight = 0;
  return createMiddleware(async (_c, next) => {
    if (inFlight >= max) throw overloaded(`too many ${what} in flight; retry after Retry-After seconds`);
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  });
}
