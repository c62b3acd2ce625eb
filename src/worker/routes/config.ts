import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ConfigChange, ConfigDiff, TenantConfig } from "../../objects/tenant/config-document.ts";
import type { AppEnv } from "../env.ts";
import { invalid, preconditionFailed } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse, preconditionError } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

/**
 * Configuration as code (issue #34, docs/config-as-code.md): the tenant's policy, catalog and app
 * decisions as one document, exported, diffed against the live tenant, and imported whole. The
 * ETag is a digest of the exported document: `If-Match` on an import refuses it with 412 once
 * anything in the configuration changed since that export.
 */

const security = [{ bearer: [] }];
const Problem = z.object({ field: z.string(), message: z.string() });
const Broken = z
  .array(z.object({ app: z.string(), functionality: z.string(), entry: z.string() }))
  .openapi({ description: "Bindings of serving apps that the new catalog no longer lets hold" });
const IfMatch = z.object({
  "if-match": z
    .string()
    .regex(/^(\*|(W\/)?"[0-9a-f]{32}")$/, 'the ETag of the export the document was written from: "…"')
    .optional()
    .openapi({ description: "The ETag of the export the change was made from; 412 if it moved" }),
});

const read = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "The tenant's configuration as one document (no secrets), with its ETag",
  security,
  responses: { 200: jsonResponse(TenantConfig, "The configuration"), ...authErrors },
});

const diff = createRoute({
  method: "post",
  path: "/diff",
  tags: ["admin"],
  summary: "What importing the document would change, per section, and the problems that would refuse it",
  security,
  request: jsonBody(TenantConfig),
  responses: {
    200: jsonResponse(
      z
        .object({ etag: z.string(), diff: ConfigDiff, problems: z.array(Problem) })
        .openapi("ConfigDiffResult"),
      "The diff against the live tenant",
    ),
    ...authErrors,
  },
});

const replace = createRoute({
  method: "put",
  path: "/",
  tags: ["admin"],
  summary:
    "Import a configuration: checked whole (400 names each field refused), applied in one transaction or not at all",
  security,
  request: { headers: IfMatch, ...jsonBody(TenantConfig) },
  responses: {
    200: jsonResponse(
      z
        .object({ etag: z.string(), applied: z.array(ConfigChange), broken: Broken })
        .openapi("ConfigImported"),
      "What changed",
    ),
    ...authErrors,
    ...preconditionError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const configRoutes = base
  .openapi(read, async (c) => {
    const { document, etag } = await tenantOf(c).exportConfig();
    c.header("ETag", etag);
    return c.json(document, 200);
  })
  .openapi(diff, async (c) => {
    const result = await tenantOf(c).diffConfig(c.req.valid("json"));
    c.header("ETag", result.etag);
    return c.json(result, 200);
  })
  .openapi(replace, async (c) => {
    const header = c.req.valid("header")["if-match"];
    const expected = header === undefined || header === "*" ? undefined : header.replace(/^W\//, "");
    const result = await tenantOf(c).importConfig(c.req.valid("json"), expected);
    if (!result.ok && result.code === "version_mismatch")
      throw preconditionFailed(result.message, result.details);
    if (!result.ok) throw invalid(result.message, result.details);
    c.header("ETag", result.etag);
    const applied = [...result.diff.policy, ...result.diff.catalog, ...result.diff.apps];
    return c.json({ etag: result.etag, applied, broken: result.broken }, 200);
  });
