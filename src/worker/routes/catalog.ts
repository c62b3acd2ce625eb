import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { CatalogDocument, CatalogEntry } from "../../apps/catalog.ts";
import type { AppEnv } from "../env.ts";
import { invalid, preconditionFailed } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse, preconditionError } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";
import { etag, expectedVersion, IfMatch } from "./catalog-entries.ts";

const security = [{ bearer: [] }];
const VersionedCatalog = z
  .object({ version: z.number().int(), entries: z.array(CatalogEntry) })
  .openapi("VersionedCatalog");
const Broken = z
  .array(z.object({ app: z.string(), functionality: z.string(), entry: z.string() }))
  .openapi({ description: "Bindings of serving apps that the new catalog no longer lets hold" });

const read = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "The tenant's catalog: the functionalities planners see in catalog mode, in the admin's words",
  security,
  responses: { 200: jsonResponse(VersionedCatalog, "The catalog"), ...authErrors },
});

const replace = createRoute({
  method: "put",
  path: "/",
  tags: ["admin"],
  summary: "Replace the catalog whole (a new version); bindings it breaks are listed",
  security,
  request: { headers: IfMatch, ...jsonBody(CatalogDocument) },
  responses: {
    200: jsonResponse(VersionedCatalog.extend({ broken: Broken }), "The new catalog"),
    ...authErrors,
    ...preconditionError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const catalogRoutes = base
  .openapi(read, async (c) => {
    const catalog = await tenantOf(c).catalog();
    c.header("ETag", etag(catalog.version));
    return c.json(catalog, 200);
  })
  .openapi(replace, async (c) => {
    const tenant = tenantOf(c);
    const expected = expectedVersion(c.req.valid("header")["if-match"]);
    const result = await tenant.putCatalog(c.req.valid("json"), expected);
    if (!result.ok && result.code === "version_mismatch")
      throw preconditionFailed(result.message, result.details);
    if (!result.ok) throw invalid(result.message, result.details);
    c.header("ETag", etag(result.version));
    return c.json({ ...(await tenant.catalog()), broken: result.broken }, 200);
  });
