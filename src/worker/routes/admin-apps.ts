import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Proposal } from "../../apps/catalog-proposal.ts";
import { ConfirmedDestinations, type DestinationsView } from "../../apps/destination-review.ts";
import type { Manifest } from "../../apps/manifest.ts";
import { type ReviewedVersion, reviewOf, VersionReview } from "../../apps/review-cards.ts";
import type { Result } from "../../result.ts";
import type { AppEnv } from "../env.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { AppSchema, ReviewStateSchema } from "../schemas/apps.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

const security = [{ bearer: [] }];
const AppIdParam = z.object({ appId: z.string().min(1).max(64) });
const VersionParams = AppIdParam.extend({ v: z.coerce.number().int().positive() });
const AppsList = z.object({ apps: z.array(AppSchema) });

const list = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "Apps and versions, optionally only those in one review state",
  security,
  request: { query: z.object({ status: ReviewStateSchema.optional() }) },
  responses: { 200: jsonResponse(AppsList, "The apps"), ...authErrors },
});

const approve = createRoute({
  method: "post",
  path: "/{appId}/versions/{v}/approve",
  tags: ["admin"],
  summary: "Approve a pending version; clearance caps the confidentiality the app may receive",
  security,
  request: {
    params: VersionParams,
    // The body is optional: approving with the default clearance needs none.
    ...jsonBody(
      z
        .object({
          clearance: z.string().optional(),
          bindings: z.record(z.string(), z.string()).optional().openapi({
            description:
              "Functionality name → catalog entry it serves. Unbound functionalities cannot be planned in catalog mode.",
          }),
          destinations: ConfirmedDestinations.optional(),
        })
        .strict()
        .openapi("Approval"),
      false,
    ),
  },
  responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError, ...conflictError },
});

const reject = createRoute({
  method: "post",
  path: "/{appId}/versions/{v}/reject",
  tags: ["admin"],
  summary: "Reject a pending version with a reason the developer sees",
  security,
  request: {
    params: VersionParams,
    ...jsonBody(
      z
        .object({ reason: z.string().trim().min(1).max(2000) })
        .strict()
        .openapi("Rejection"),
    ),
  },
  responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError, ...conflictError },
});

const bind = createRoute({
  method: "put",
  path: "/{appId}/versions/{v}/bindings",
  tags: ["admin"],
  summary:
    "Replace the bindings of the serving approved version, checked as at approval: no new version needed",
  security,
  request: {
    params: VersionParams,
    ...jsonBody(
      z
        .object({
          bindings: z.record(z.string(), z.string()).openapi({
            description: "Functionality name → catalog entry, whole: a functionality left out is unbound",
          }),
        })
        .strict()
        .openapi("Bindings"),
    ),
  },
  responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError, ...conflictError },
});

const propose = createRoute({
  method: "get",
  path: "/{appId}/versions/{v}/proposals",
  tags: ["admin"],
  summary:
    "A catalog entry proposed for each unbound functionality: its schemas, no app text, a description for the admin to write",
  security,
  request: { params: VersionParams },
  responses: {
    200: jsonResponse(
      z.object({ proposals: z.array(Proposal) }).openapi("CatalogProposals"),
      "The proposals",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const review = createRoute({
  method: "get",
  path: "/{appId}/versions/{v}/review",
  tags: ["admin"],
  summary:
    "A version's review: one card per functionality, its changes against the approved version before it, its binding, irreversibility and destinations",
  security,
  request: { params: VersionParams },
  responses: { 200: jsonResponse(VersionReview, "The review"), ...authErrors, ...notFoundError },
});

const toggle = (action: "disable" | "enable") =>
  createRoute({
    method: "post",
    path: `/{appId}/${action}`,
    tags: ["admin"],
    summary:
      action === "disable" ? "Disable an app: invisible to planners, never called" : "Enable an app again",
    security,
    request: { params: AppIdParam },
    responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError },
  });

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const adminAppRoutes = base
  .openapi(list, async (c) => c.json({ apps: await tenantOf(c).listApps(c.req.valid("query").status) }, 200))
  .openapi(approve, async (c) => {
    const { appId, v } = c.req.valid("param");
    const tenant = tenantOf(c);
    const { policy } = await tenant.policy();
    const levels = policy.lattices.confidentiality;
    const clearance =
      c.req.valid("json").clearance ?? (levels.includes("internal") ? "internal" : levels[0]!);
    if (!levels.includes(clearance)) {
      throw invalid("unknown clearance", [
        { field: "body.clearance", message: "not a confidentiality level" },
      ]);
    }
    const { bindings, destinations } = c.req.valid("json") ?? {};
    const decision = {
      approve: true as const,
      clearance,
      ...(bindings && { bindings }),
      ...(destinations && { destinations }),
    };
    return c.json(reviewed(await tenant.review(appId, v, decision)), 200);
  })
  .openapi(reject, async (c) => {
    const { appId, v } = c.req.valid("param");
    const { reason } = c.req.valid("json");
    return c.json(reviewed(await tenantOf(c).review(appId, v, { approve: false, reason })), 200);
  })
  .openapi(bind, async (c) => {
    const { appId, v } = c.req.valid("param");
    const result = await tenantOf(c).bindApp(appId, v, c.req.valid("json").bindings);
    if (result.ok) return c.json(result.app, 200);
    if (result.code === "not_found") throw notFound("app version");
    if (result.code === "invalid_binding") throw invalid(result.message, result.details);
    throw conflict(result.message);
  })
  .openapi(propose, async (c) => {
    const { appId, v } = c.req.valid("param");
    const proposals = await tenantOf(c).catalogProposals(appId, v);
    if (!proposals) throw notFound("app version");
    return c.json({ proposals }, 200);
  })
  .openapi(review, async (c) => {
    const { appId, v } = c.req.valid("param");
    const app = (await tenantOf(c).listApps()).find((a) => a.id === appId);
    const version = app?.versions.find((x) => x.version === v);
    if (!app || !version) throw notFound("app version");
    // What it is compared with: as the developer's view and the MCP tool changes, the newest
    // approved version before it.
    const against = app.versions.filter((x) => x.version < v && x.status === "approved").at(-1);
    return c.json(reviewOf(reviewSide(version), against ? reviewSide(against) : null), 200);
  })
  .openapi(toggle("disable"), async (c) =>
    c.json(found(await tenantOf(c).setAppEnabled(c.req.valid("param").appId, false)), 200),
  )
  .openapi(toggle("enable"), async (c) =>
    c.json(found(await tenantOf(c).setAppEnabled(c.req.valid("param").appId, true)), 200),
  );

function reviewed<A>(
  result: Result<{ app: A }, "not_found" | "not_pending" | "invalid_binding" | "invalid_destinations">,
): A {
  if (result.ok) return result.app;
  if (result.code === "not_found") throw notFound("app version");
  if (result.code === "invalid_binding") throw invalid("a binding does not hold", result.details);
  if (result.code === "invalid_destinations")
    throw invalid("a confirmed destination does not hold", result.details);
  throw conflict(result.message);
}

/** A stored version as the review reads it: the admin's confirmed lists out of its destinations view. */
function reviewSide(v: {
  version: number;
  manifest: Manifest;
  bindings: Record<string, string>;
  destinations: DestinationsView;
}): ReviewedVersion {
  const confirmed = (kind: "functionalities" | "tools") =>
    Object.fromEntries(
      Object.entries(v.destinations[kind]).flatMap(([name, d]) => (d.confirmed ? [[name, d.confirmed]] : [])),
    );
  return {
    version: v.version,
    manifest: v.manifest,
    bindings: v.bindings,
    confirmed: { functionalities: confirmed("functionalities"), tools: confirmed("tools") },
  };
}

function found<A>(app: A | null): A {
  if (!app) throw notFound("app");
  return app;
}
