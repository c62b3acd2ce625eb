import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { KEY_ROLES } from "../../objects/tenant/keys.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { principals, requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

const KeySchema = z
  .object({
    id: z.string(),
    role: z.enum(KEY_ROLES),
    label: z.string(),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
  })
  .openapi("ApiKey");

const IssuedKeySchema = KeySchema.extend({
  secret: z.string().openapi({ description: "Shown once; store it now" }),
}).openapi("IssuedApiKey");

const NewKeySchema = z
  .object({ role: z.enum(KEY_ROLES), label: z.string().trim().min(1).max(200) })
  .strict()
  .openapi("NewApiKey");

const KeyIdParam = z.object({ id: z.string().min(1).max(128) });

const security = [{ bearer: [] }];

const issue = createRoute({
  method: "post",
  path: "/",
  tags: ["admin"],
  summary: "Issue an API key (the secret is returned once)",
  security,
  request: jsonBody(NewKeySchema),
  responses: { 201: jsonResponse(IssuedKeySchema, "The new key with its secret"), ...authErrors },
});

const list = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "List the tenant's API keys (no secrets)",
  security,
  responses: { 200: jsonResponse(z.object({ keys: z.array(KeySchema) }), "The keys"), ...authErrors },
});

const revoke = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["admin"],
  summary: "Revoke an API key, effective at once",
  security,
  request: { params: KeyIdParam },
  responses: { 200: jsonResponse(KeySchema, "The revoked key"), ...authErrors, ...notFoundError },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const keyRoutes = base
  .openapi(issue, async (c) => {
    const { role, label } = c.req.valid("json");
    const key = await tenantOf(c).issueKey(role, label);
    return c.json(key, 201);
  })
  .openapi(list, async (c) => c.json({ keys: await tenantOf(c).listKeys() }, 200))
  .openapi(revoke, async (c) => {
    const key = await tenantOf(c).revokeKey(c.req.valid("param").id);
    if (!key) throw notFound("key");
    principals(c.env).forgetKey(c.var.principal.tenantId, key.id);
    return c.json(key, 200);
  });
