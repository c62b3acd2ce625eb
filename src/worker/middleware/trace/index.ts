import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { childContext, formatTraceparent, parseTraceparent, Tracer } from "../../../objects/tracing.ts";
import type { AppEnv } from "../../env.ts";
import { ApiError, codeForStatus } from "../../errors.ts";

/**
 * The Worker's own span of each API request (`lattice.request`, kind SERVER): it continues the
 * caller's W3C `traceparent` and is the parent of what the request starts in the objects (a query's
 * `lattice.query`, docs/traces.md), so a product's trace shows the call it made and, under it, what
 * Lattice did. Tracing off (no `LATTICE_OTLP_ENDPOINT`), nothing is made and the objects are passed
 * no context. A request no credential answered for (a 401) is not recorded.
 *
 * The span ends when the response starts: a stream's body (a chat turn) is not waited for, the
 * query's own span covers its life.
 */
export const traceRequest = createMiddleware<AppEnv>(async (c, next) => {
  const tracer = new Tracer(c.env, { object: "worker" }, (p) => waitUntil(c, p));
  if (!tracer.on) return next();
  // Bounded as any header an object keeps; a malformed one is ignored (a trace of its own), never refused.
  const parent = parseTraceparent(
    c.req.header("traceparent")?.slice(0, 64),
    c.req.header("tracestate")?.slice(0, 512),
  );
  const context = childContext(parent);
  c.set("trace", context);
  const startMs = Date.now();
  try {
    await next();
  } finally {
    // Only a request a key or token answered for is recorded: an anonymous caller's traceparent
    // writes nothing into the operator's traces (any trace id could be named) and costs no export.
    const tenant = c.get("principal")?.tenantId;
    if (tenant) {
      tracer.identify({ tenant });
      tracer.record({
        name: "lattice.request",
        context,
        ...(parent && { parentSpanId: parent.spanId }),
        startMs,
        endMs: Date.now(),
        attributes: {
          "http.request.method": c.req.method,
          // The template of the route that answered (`/v1/sessions/:sid/queries`), never the path:
          // a path holds ids a user chose (a session's name, a user id).
          "http.route": routePath(c),
          "http.response.status_code": c.res.status,
        },
        outcome: outcomeOf(c.error, c.res.status),
      });
    }
  }
});

/** Keeps the export alive past the response; a caller with no execution context (a test) lets it run. */
function waitUntil(
  c: { executionCtx: { waitUntil(p: Promise<unknown>): void } },
  promise: Promise<unknown>,
): void {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    promise.catch(() => {});
  }
}

/** The API's error code for what the request ended in, "ok" below 400. */
function outcomeOf(error: unknown, status: number): string {
  if (error instanceof ApiError) return error.code;
  return status < 400 ? "ok" : codeForStatus(status);
}

/**
 * What an object is given to continue the request's trace: the request span's context, or nothing
 * while tracing is off.
 */
export function forwardedTrace(c: { get(key: "trace"): AppEnv["Variables"]["trace"] }): {
  traceparent?: string;
  tracestate?: string;
} {
  const context = c.get("trace");
  if (!context) return {};
  return { traceparent: formatTraceparent(context), ...(context.state && { tracestate: context.state }) };
}
