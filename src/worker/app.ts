import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { consoleRoutes } from "../console/index.tsx";
import type { AppEnv } from "./env.ts";
import { ApiError, codeForStatus } from "./errors.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { cors } from "./middleware/cors/index.ts";
import { adminAppRoutes } from "./routes/admin-apps.ts";
import { aiSdkRoutes } from "./routes/ai-sdk.ts";
import { appRoutes } from "./routes/apps.ts";
import { artifactRoutes } from "./routes/artifacts.ts";
import { auditRoutes } from "./routes/audit.ts";
import { catalogRoutes } from "./routes/catalog.ts";
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
import { registerChatPaths } from "./schemas/chat.ts";

/** Largest request body the API accepts (manifests with schemas are the biggest legitimate bodies). */
export const MAX_BODY_BYTES = 1024 * 1024;

const app = new OpenAPIHono<AppEnv>();

app.use("/v1/*", cors);
app.use("/v1/*", accessLog);

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

const routes = app
  .route("/", healthRoutes)
  .route("/v1/operator/tenants", tenantRoutes)
  .route("/v1/operator/metrics", metricsRoutes)
  .route("/v1/admin/keys", keyRoutes)
  .route("/v1/admin/apps", adminAppRoutes)
  .route("/v1/admin/audit", auditRoutes)
  .route("/v1/admin/policy", policyRoutes)
  .route("/v1/admin/catalog", catalogRoutes)
  .route("/v1/apps", appRoutes)
  .route("/v1/sessions", sessionRoutes)
  .route("/v1/sessions", consentRoutes)
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
app.doc31("/openapi.json", {
  openapi: "3.1.0",
  info: {
    title: "Lattice API",
    version: "1",
    description: "Run third-party LLM apps safely: hub-and-spoke isolation, plan-first IFC, audited agents.",
  },
});
app.route("/", docsRoutes(app));
// The web console: page shells and their script; it calls the API above from the browser.
app.route("/console", consoleRoutes);

app.notFound(() => {
  throw new ApiError(404, "not_found", { message: "no such route" });
});

// The single place where anything thrown becomes a response; unknown errors never show their stack.
app.onError((err, c) => {
  if (err instanceof ApiError) return c.json(err.toBody(), err.status, err.headers);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const apiError = new ApiError(status, codeForStatus(status), {
      message: err.message || "request refused",
      cause: err,
    });
    return c.json(apiError.toBody(), status);
  }
  console.error("unhandled error", err);
  return c.json(new ApiError(500, "internal_error", { message: "internal error" }).toBody(), 500);
});

export type AppType = typeof routes;
export default app;
