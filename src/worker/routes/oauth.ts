import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { decodeState } from "../../mcp/oauth-state.ts";
import { tenantPolicy } from "../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../env.ts";
import { invalid } from "../errors.ts";
import { validationHook } from "../validation.ts";

/**
 * Where an MCP app's authorization server sends the user's browser back (per-user OAuth 2.1). It
 * redeems nothing: a browser is not a user. It passes `state`, `code` (or `error`) and `iss` on to
 * the tenant's frontend page (`oauth.returnUrl`), which completes the sign-in for the user it has
 * signed in (`POST /v1/users/{userId}/authorizations`); Lattice then checks that user is the one the
 * sign-in was started for. So a sign-in URL sent to someone else cannot put their account in the
 * sender's spoke, nor the sender's in theirs.
 */
const Callback = z.object({
  state: z.string().min(1).max(2048),
  code: z.string().min(1).max(4096).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
});

const callback = createRoute({
  method: "get",
  path: "/callback/{appId}",
  tags: ["users"],
  summary: "The redirect of an MCP app's authorization server: on to the tenant's frontend page, unredeemed",
  request: { params: z.object({ appId: z.string().min(1).max(64) }), query: Callback },
  responses: {
    303: { description: "On to the tenant's oauth.returnUrl with state, code (or error) and iss" },
    400: { description: "A state Lattice did not issue, for another app, or a tenant without a return page" },
  },
});

export const oauthRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  callback,
  async (c) => {
    const { state, code, iss, error } = c.req.valid("query");
    const secret = c.env.LATTICE_KEY_SECRET;
    const owner = secret ? await decodeState(secret, state) : null;
    // The answer must come back on the path of the app the sign-in was for (no mix-up between apps).
    if (!owner || owner.appId !== c.req.valid("param").appId) {
      throw invalid("not an authorization Lattice asked for", [{ field: "query.state", message: "unknown" }]);
    }
    if (!code && !error) throw invalid("the callback carries neither a code nor an error", []);
    // The tenant comes from the sealed state (no key here): only Lattice could have written it.
    const policy = await tenantPolicy(c.env, owner.tenantId);
    const returnUrl = policy.oauth.returnUrl;
    if (!returnUrl) {
      throw invalid("this tenant has no page to complete a sign-in (policy oauth.returnUrl)", []);
    }
    const next = new URL(returnUrl);
    next.searchParams.set("state", state);
    if (code) next.searchParams.set("code", code);
    if (error) next.searchParams.set("error", error);
    if (iss) next.searchParams.set("iss", iss);
    return c.redirect(next.href, 303);
  },
);
