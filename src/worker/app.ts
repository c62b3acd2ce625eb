import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { consoleRoutes } from "../console/index.tsx";
import type { AppEnv } from "./env.ts";
import { ApiError, codeForStatus } from "./errors.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { cors } from "./middleware/cors/index.ts";
import { traceRequest } from "./middleware/trace/index.ts";
import { adminAppRoutes } from "./routes/admin-apps.ts";
import { aiSdkRoutes } from "./routes/ai-sdk.ts";
import { appRoutes } from "./routes/apps.ts";
import { artifactRoutes } from "./routes/artifacts.ts";
import { auditRoutes } from "./routes/audit.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { catalogEntryRoutes } from "./routes/catalog-entries.ts";
import { configRoutes } from "./routes/config.ts";
import { consentRoutes } from "./routes/consents.ts";
import { docsRoutes } from "./routes/docs.ts";
import { grantRoutes } from "./routes/grants.ts";
import { healthRoutes } from "./routes/health.ts";
import { keyRoutes } from "./routes/keys.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { policyRoutes } from "./routes/policy.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { standingRuleRoutes } from "./routes/standing-rules.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { userDataRoutes } from "./routes/user-data.ts";
import { registerChatPaths } from "./schemas/chat.ts";
import { inFlightLimit, shedding } from "./shed.ts";
import { forgetTenantOnWrite } from "./tenant.ts";

/** Largest request body the API accepts (manifests with schemas are the biggest legitimate bodies). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Query starts one isolate lets wait at once. A start waits on the session's hub and, through it, on
 * the tenant's objects; past this many a burst only lengthens their queues (a 256-query burst on 2
 * cores took 3 to 12 s a start), so the rest are answered 503 with Retry-After at once. At ~20 ms a
 * start that is ~3,000 starts a second per isolate, above what one tenant's objects serve.
 */
export const MAX_QUERY_STARTS_IN_FLIGHT = 64;

const app = new OpenAPIHono<AppEnv>();

app.use("/v1/*", cors);
app.use("/v1/*", traceRequest);
app.use("/v1/*", accessLog);
// An admin's or developer's write holds at once in the isolate that made it (tenant-replica/).
app.use("/v1/admin/*", forgetTenantOnWrite);
app.use("/v1/apps/*", forgetTenantOnWrite);

app.use(
  "/v1/*",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "payload_too_large", {
        message: `request body exceeds ${MAX_BODY_BYTES} bytes`,
      });
    },
  }),
);

app.on("POST", "/v1/sessions/:sid/queries", inFlightLimit(MAX_QUERY_STARTS_IN_FLIGHT, "query starts"));

const routes = app
  .route("/", healthRoutes)
  .route("/v1/operator/tenants", tenantRoutes)
  .route("/v1/operator/metrics", metricsRoutes)
  .route("/v1/admin/keys", keyRoutes)
  .route("/v1/admin/apps", adminAppRoutes)
  .route("/v1/admin/audit", auditRoutes)
  .route("/v1/admin/policy", policyRoutes)
  .route("/v1/admin/catalog/entries", catalogEntryRoutes)
  .route("/v1/admin/catalog", catalogRoutes)
  .route("/v1/admin/config", configRoutes)
  .route("/v1/apps", appRoutes)
  .route("/v1/sessions", sessionRoutes)
  .route("/v1/sessions", consentRoutes)
  // Before the other /v1/users routes: these take an admin key too, which their frontend-only
  // middleware would refuse.
  .route("/v1/users", userDataRoutes)
  .route("/v1/users", tokenRoutes)
  .route("/v1/users", artifactRoutes)
  .route("/v1/users", grantRoutes)
  .route("/v1/users", standingRuleRoutes)
  .route("/v1/oauth", oauthRoutes)
  .route("/v1/openai", openaiRoutes)
  .route("/v1/ai-sdk", aiSdkRoutes);

app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
  type: "http",
  scheme: "bearer",
  description: "A tenant API key (`lk.<tenant>.<secret>`) of the role the route names",
});
app.openAPIRegistry.registerComponent("securitySchemes", "operator", {
  type: "http",
  scheme: "bearer",
  description: "The deployment's operator secret (Worker secret LATTICE_OPERATOR_SECRET)",
});
registerChatPaths(app.openAPIRegistry);
const OPENAPI_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Lattice API",
    version: "1",
    description: "Run third-party LLM apps safely: hub-and-spoke isolation, plan-first IFC, audited agents.",
  },
};
app.doc31("/openapi.json", OPENAPI_CONFIG);
// The API reference, rendered from the very document /openapi.json serves.
app.route("/", docsRoutes(app, OPENAPI_CONFIG));
// The web console: page shells and their script; it calls the API above from the browser.
app.route("/console", consoleRoutes);

app.notFound(() => {
  throw new ApiError(404, "not_found", { message: "no such route" });
});

/** The single place where anything thrown becomes a response; unknown errors never show their stack. */
export function onApiError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) return c.json(err.toBody(), err.status, err.headers);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const apiError = new ApiError(status, codeForStatus(status), {
      message: err.message || "request refused",
      cause: err,
    });
    return c.json(apiError.toBody(), status);
  }
  // An object overloaded, or reset mid-call: 503 with Retry-After, not a 500 (issue #31).
  const shed = shedding(err);
  if (shed) {
    console.warn("shed: an object call failed under load", err);
    return c.json(shed.toBody(), shed.status, shed.headers);
  }
  console.error("unhandled error", err);
  return c.json(new ApiError(500, "internal_error", { message: "internal error" }).toBody(), 500);
}
app.onError(onApiError);

export type AppType = typeof routes;
export default app;
