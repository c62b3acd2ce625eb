import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { randomId } from "../../objects/crypto.ts";
import { tenantAdmin } from "../../objects/stubs.ts";
import { auditNow } from "../audit.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { requireOperator } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse } from "../schemas/common.ts";
import { validationHook } from "../validation.ts";

const NewTenantSchema = z
  .object({ name: z.string().trim().min(1).max(200) })
  .strict()
  .openapi("NewTenant");

const CreatedTenantSchema = z
  .object({
    tenantId: z.string(),
    name: z.string(),
    adminKey: z.object({ id: z.string(), role: z.literal("admin"), label: z.string(), secret: z.string() }),
  })
  .openapi("CreatedTenant");

const create = createRoute({
  method: "post",
  path: "/",
  tags: ["operator"],
  summary: "Create a tenant and its first admin key (operator secret; used by `npm run tenant:create`)",
  security: [{ operator: [] }],
  request: jsonBody(NewTenantSchema),
  responses: { 201: jsonResponse(CreatedTenantSchema, "The tenant and its admin key"), ...authErrors },
});

const AdminKeySchema = z
  .object({ id: z.string(), role: z.literal("admin"), label: z.string(), secret: z.string() })
  .openapi("IssuedAdminKey");

const recover = createRoute({
  method: "post",
  path: "/{tenantId}/keys",
  tags: ["operator"],
  summary:
    "Issue a new admin key for an existing tenant (operator secret): the way back after keys were lost or LATTICE_KEY_SECRET changed",
  security: [{ operator: [] }],
  request: {
    params: z.object({ tenantId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) }),
    ...jsonBody(z.object({ label: z.string().trim().min(1).max(200).optional() }).strict(), false),
  },
  responses: {
    201: jsonResponse(AdminKeySchema, "The new admin key, shown once"),
    ...authErrors,
    404: jsonResponse(
      z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
      "No such tenant",
    ),
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireOperator);

export const tenantRoutes = base
  .openapi(create, async (c) => {
    const { name } = c.req.valid("json");
    const tenantId = randomId("tn", 8);
    const created = await tenantAdmin(c.env, tenantId).create(tenantId, name);
    const { id, label, secret } = created.adminKey;
    return c.json({ tenantId, name, adminKey: { id, role: "admin" as const, label, secret } }, 201);
  })
  .openapi(recover, async (c) => {
    const tenant = tenantAdmin(c.env, c.req.valid("param").tenantId);
    if (!(await tenant.info())) throw notFound("tenant");
    const label = (c.req.valid("json") as { label?: string } | undefined)?.label ?? "issued by the operator";
    const key = await tenant.issueKey("admin", label);
    // Shipped before the secret is shown: an admin key minted by the operator is the one event an
    // admin must find in the log whatever happens to this isolate, and it is rare (no batch to wait for).
    await auditNow(c, c.req.valid("param").tenantId, "operator_key_issued", { keyId: key.id });
    return c.json({ id: key.id, role: "admin" as const, label: key.label, secret: key.secret }, 201);
  });
