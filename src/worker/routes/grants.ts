import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { spokeStub } from "../../objects/stubs.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { ownUser, requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonResponse, notFoundError } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { validationHook } from "../validation.ts";
import { artifactsOf } from "./artifacts.ts";

const GrantSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    subject: z.string(),
    choice: z.string().nullable(),
    description: z.string(),
    createdAt: z.string(),
  })
  .openapi("Grant");
const UserParam = z.object({ userId: UserIdSchema });

const list = createRoute({
  method: "get",
  path: "/{userId}/grants",
  tags: ["frontend"],
  summary: "The user's standing (permanent) grants",
  security: [{ bearer: [] }],
  request: { params: UserParam },
  responses: { 200: jsonResponse(z.object({ grants: z.array(GrantSchema) }), "Grants"), ...authErrors },
});

const revoke = createRoute({
  method: "delete",
  path: "/{userId}/grants/{gid}",
  tags: ["frontend"],
  summary: "Revoke a grant; the next step of any running query asks again",
  security: [{ bearer: [] }],
  request: { params: UserParam.extend({ gid: z.string().min(1).max(64) }) },
  responses: {
    200: jsonResponse(z.object({ revoked: z.literal(true) }), "Revoked"),
    ...authErrors,
    ...notFoundError,
  },
});

const revokeAuthorization = createRoute({
  method: "delete",
  path: "/{userId}/authorizations/{appId}",
  tags: ["frontend"],
  summary:
    "Revoke the user's own authorization of an MCP app (per-user OAuth): tokens dropped and revoked at its server",
  security: [{ bearer: [] }],
  request: { params: UserParam.extend({ appId: z.string().min(1).max(64) }) },
  responses: {
    200: jsonResponse(
      z.object({ revoked: z.literal(true) }),
      "Revoked; the next call asks the user to sign in again",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));

export const grantRoutes = base
  .openapi(list, async (c) =>
    c.json({ grants: await artifactsOf(c, c.req.valid("param").userId).grants() }, 200),
  )
  .openapi(revoke, async (c) => {
    const { userId, gid } = c.req.valid("param");
    if (!(await artifactsOf(c, userId).revokeGrant(gid))) throw notFound("grant");
    return c.json({ revoked: true as const }, 200);
  })
  .openapi(revokeAuthorization, async (c) => {
    const { userId, appId } = c.req.valid("param");
    if (!ownUser(c, userId)) throw notFound("user");
    const { tenantId } = c.var.principal;
    const revoked = await spokeStub(c.env, tenantId, userId, appId).revokeAuthorization({
      tenantId,
      userId,
      appId,
    });
    if (!revoked) throw notFound("authorization");
    return c.json({ revoked: true as const }, 200);
  });
