import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_TOKEN_SECONDS, mintUserToken } from "../../credentials.ts";
import { auditLater } from "../audit.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireApiKey, requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { requireKnownRoles } from "../tenant.ts";
import { validationHook } from "../validation.ts";

/**
 * User tokens: what a browser may hold. The chat product's server, holding the frontend key (never
 * a browser), issues one per signed-in user; with it, only that user's sessions, queries, consents,
 * artifacts and grants are reachable.
 */
const TokenRequest = z
  .object({
    ttlSeconds: z.number().int().min(60).max(MAX_TOKEN_SECONDS).default(900),
    roles: z.array(z.string().min(1).max(64)).max(32).optional().openapi({
      description:
        "The session roles the token may open sessions with (default: none, so the policy's defaultRoles)",
    }),
  })
  .strict()
  .openapi("UserTokenRequest");
const UserToken = z
  .object({ token: z.string(), userId: z.string(), expiresAt: z.string() })
  .openapi("UserToken");

const issue = createRoute({
  method: "post",
  path: "/{userId}/tokens",
  tags: ["frontend"],
  summary: "Issue a short-lived user token for a browser (frontend key only, never a user token)",
  security: [{ bearer: [] }],
  request: { params: z.object({ userId: UserIdSchema }), ...jsonBody(TokenRequest, false) },
  responses: { 201: jsonResponse(UserToken, "The token, shown once"), ...authErrors },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));
// Only on this path: the sub-app shares /v1/users with the artifact and grant routes.
base.use("/:userId/tokens", requireApiKey);

export const tokenRoutes = base.openapi(issue, async (c) => {
  const secret = c.env.LATTICE_KEY_SECRET;
  if (!secret)
    throw new ApiError(503, "not_configured", {
      message: "this deployment has no LATTICE_KEY_SECRET to sign tokens",
    });
  const { userId } = c.req.valid("param");
  // The body is optional: without one, the defaults (checked already when one was sent).
  const { ttlSeconds, roles } = TokenRequest.parse(c.req.valid("json") ?? {});
  await requireKnownRoles(c, roles);
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const { tenantId, keyId } = c.var.principal;
  const token = await mintUserToken(
    secret,
    { u: userId, exp, kid: keyId, ...(roles && { roles }) },
    tenantId,
  );
  // Batched, not shipped before the answer: a chat product mints one per user sign-in and refresh, so
  // one TenantDO call per token would put the tenant-wide object back on that path (#31). Lost only
  // with its isolate (audit-batch.ts), and the token is revocable with the key it names.
  await auditLater(c, "user_token_issued", { keyId, userId, expiresAt: new Date(exp * 1000).toISOString() });
  return c.json({ token, userId, expiresAt: new Date(exp * 1000).toISOString() }, 201);
});
