import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { invalid } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

// The document's own schema lives in src/policy (the trusted core); here it is checked there, whole.
const PolicyDocument = z.record(z.string(), z.unknown()).openapi("PolicyDocument", {
  description:
    "The tenant policy (API.md): lattices, tools, display, onViolation, selfCorrection, consent, limits, models",
});
const VersionedPolicy = z
  .object({ version: z.number().int(), policy: PolicyDocument })
  .openapi("VersionedPolicy");

const read = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "The policy in force, defaults filled in, model API keys masked",
  security: [{ bearer: [] }],
  responses: { 200: jsonResponse(VersionedPolicy, "The policy"), ...authErrors },
});

const replace = createRoute({
  method: "put",
  path: "/",
  tags: ["admin"],
  summary: "Replace the policy whole (a new version); fields left out take the secure defaults",
  security: [{ bearer: [] }],
  request: jsonBody(PolicyDocument),
  responses: { 200: jsonResponse(VersionedPolicy, "The new policy"), ...authErrors },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const policyRoutes = base
  .openapi(read, async (c) => c.json(await tenantOf(c).policyForAdmin(), 200))
  .openapi(replace, async (c) => {
    const tenant = tenantOf(c);
    const result = await tenant.putPolicy(c.req.valid("json"));
    if (!result.ok) {
      throw invalid(
        "policy refused",
        result.details.map((i) => ({ field: i.path ? `body.${i.path}` : "body", message: i.message })),
      );
    }
    return c.json(await tenant.policyForAdmin(), 200);
  });
