import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { decodeState } from "../../mcp/oauth-state.ts";
import { hubStub, spokeStub, tenantServing } from "../../objects/stubs.ts";
import { servingState } from "../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { answererOf } from "../hub.ts";
import { ownUser, requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
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
  request: { params: UserParam.extend({ appId: z.string().regex(/^app_[0-9a-f]{1,64}$/, "an app id") }) },
  responses: {
    200: jsonResponse(
      z.object({ revoked: z.literal(true) }),
      "Revoked; the next call asks the user to sign in again",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const CompleteAuthorization = z
  .object({
    state: z.string().min(1).max(2048),
    code: z.string().min(1).max(4096).optional(),
    iss: z.string().max(2048).optional(),
    error: z.string().max(256).optional(),
  })
  .strict()
  .openapi("CompleteAuthorization");

const completeAuthorization = createRoute({
  method: "post",
  path: "/{userId}/authorizations",
  tags: ["frontend"],
  summary:
    "Complete a user's sign-in to an MCP app: what the authorization server sent back (state, code or error), for the user the frontend has signed in",
  security: [{ bearer: [] }],
  request: { params: UserParam, ...jsonBody(CompleteAuthorization) },
  responses: {
    200: jsonResponse(
      z.object({ authorized: z.boolean() }),
      "Settled: the query waiting on the sign-in goes on (authorized) or fails (refused)",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const AppParam = UserParam.extend({ appId: z.string().regex(/^app_[0-9a-f]{1,64}$/, "an app id") });
const PersonalTokenStatus = z
  .object({ set: z.boolean(), setAt: z.string().nullable() })
  .openapi("PersonalTokenStatus", {
    description: "Whether the user's personal token is set (it is never read back)",
  });
const PersonalTokenBody = z
  .object({ token: z.string().min(1).max(4096) })
  .strict()
  .openapi("PersonalTokenBody");

const PersonalTokenSlot = PersonalTokenStatus.extend({ appId: z.string(), name: z.string() }).openapi(
  "PersonalTokenSlot",
  {
    description:
      "A serving app that takes a personal token, and whether the user set theirs (never the token)",
  },
);
const personalTokenList = createRoute({
  method: "get",
  path: "/{userId}/personal-tokens",
  tags: ["frontend"],
  summary:
    "The serving `user_token` MCP apps, each with whether the user has set their personal token (never the token)",
  security: [{ bearer: [] }],
  request: { params: UserParam },
  responses: {
    200: jsonResponse(z.object({ apps: z.array(PersonalTokenSlot) }), "One slot per app, by name"),
    ...authErrors,
    ...notFoundError,
  },
});
const personalTokenStatus = createRoute({
  method: "get",
  path: "/{userId}/personal-tokens/{appId}",
  tags: ["frontend"],
  summary: "Whether the user has set a personal token for a `user_token` MCP app (never the token)",
  security: [{ bearer: [] }],
  request: { params: AppParam },
  responses: { 200: jsonResponse(PersonalTokenStatus, "Set or not"), ...authErrors, ...notFoundError },
});
const setPersonalToken = createRoute({
  method: "put",
  path: "/{userId}/personal-tokens/{appId}",
  tags: ["frontend"],
  summary:
    "Set the user's personal token for a `user_token` MCP app: sealed in their spoke, sent only to the app's server URL",
  security: [{ bearer: [] }],
  request: { params: AppParam, ...jsonBody(PersonalTokenBody) },
  responses: { 200: jsonResponse(PersonalTokenStatus, "Set"), ...authErrors, ...notFoundError },
});
const dropPersonalToken = createRoute({
  method: "delete",
  path: "/{userId}/personal-tokens/{appId}",
  tags: ["frontend"],
  summary: "Drop the user's personal token: the next call of the app asks the user to connect first",
  security: [{ bearer: [] }],
  request: { params: AppParam },
  responses: { 200: jsonResponse(PersonalTokenStatus, "Dropped"), ...authErrors, ...notFoundError },
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
  .openapi(completeAuthorization, async (c) => {
    const { userId } = c.req.valid("param");
    const { state, code, iss } = c.req.valid("json");
    if (!ownUser(c, userId)) throw notFound("user");
    const { tenantId } = c.var.principal;
    const owner = c.env.LATTICE_KEY_SECRET ? await decodeState(c.env.LATTICE_KEY_SECRET, state) : null;
    // Only the user the sign-in was started for completes it: another user's browser cannot.
    if (!owner || owner.tenantId !== tenantId || owner.userId !== userId) throw notFound("authorization");
    const done = await spokeStub(c.env, tenantId, userId, owner.appId).completeAuthorization({
      ...owner,
      code: code ?? null,
      ...(iss !== undefined && { iss }),
    });
    if (!done) throw notFound("authorization"); // used, expired, or never issued
    try {
      await hubStub(c.env, tenantId, done.sessionId).authorizationDone(
        done.queryId,
        done.subject,
        done.authorized,
        answererOf(c),
      );
    } catch {
      // The tokens are kept; a query that no longer waits (or a gone session) changes nothing.
    }
    return c.json({ authorized: done.authorized }, 200);
  })
  .openapi(personalTokenList, async (c) => {
    const { userId } = c.req.valid("param");
    if (!ownUser(c, userId)) throw notFound("user");
    const { tenantId } = c.var.principal;
    // Without this list a user could not know which apps wait for a token of theirs (the console's My data).
    const taking = (await servingState(c.env, tenantId)).apps
      .map((h) => h.app)
      .filter((a) => a.manifest.mcp?.auth.type === "user_token")
      .sort((a, b) => a.name.localeCompare(b.name));
    const apps = await Promise.all(
      taking.map(async (a) => {
        const slot = await spokeStub(c.env, tenantId, userId, a.appId).personalTokenSlot(
          { tenantId, userId, appId: a.appId },
          null,
        );
        const setAt = slot.ok ? slot.setAt : null;
        return { appId: a.appId, name: a.name, set: setAt !== null, setAt };
      }),
    );
    return c.json({ apps }, 200);
  })
  .openapi(personalTokenStatus, async (c) => c.json(await personalSlot(c, null), 200))
  .openapi(setPersonalToken, async (c) =>
    c.json(await personalSlot(c, { set: c.req.valid("json").token }), 200),
  )
  .openapi(dropPersonalToken, async (c) => c.json(await personalSlot(c, { drop: true }), 200))
  .openapi(revokeAuthorization, async (c) => {
    const { userId, appId } = c.req.valid("param");
    if (!ownUser(c, userId)) throw notFound("user");
    const { tenantId } = c.var.principal;
    // An app id the tenant never had would otherwise create an empty spoke object just to answer 404.
    if (!(await tenantServing(c.env, tenantId).hasApp(appId))) throw notFound("authorization");
    const revoked = await spokeStub(c.env, tenantId, userId, appId).revokeAuthorization({
      tenantId,
      userId,
      appId,
    });
    if (!revoked) throw notFound("authorization");
    return c.json({ revoked: true as const }, 200);
  });

/** The user's own personal-token slot of an app, through their spoke (never another user's). */
async function personalSlot(
  c: { env: AppEnv["Bindings"]; var: AppEnv["Variables"]; req: { param(): Record<string, string> } },
  change: { set: string } | { drop: true } | null,
): Promise<{ set: boolean; setAt: string | null }> {
  const { userId, appId } = c.req.param() as { userId: string; appId: string };
  if (!ownUser(c, userId)) throw notFound("user");
  const { tenantId } = c.var.principal;
  // An app id the tenant never had would otherwise create an empty spoke object just to answer 404.
  if (!(await tenantServing(c.env, tenantId).hasApp(appId))) throw notFound("personal token");
  const slot = await spokeStub(c.env, tenantId, userId, appId).personalTokenSlot(
    { tenantId, userId, appId },
    change,
  );
  if (!slot.ok) throw notFound("personal token");
  return { set: slot.setAt !== null, setAt: slot.setAt };
}
