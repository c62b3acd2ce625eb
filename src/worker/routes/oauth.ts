import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { decodeState } from "../../mcp/oauth-state.ts";
import { hubStub, spokeStub } from "../../objects/stubs.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, invalid } from "../errors.ts";
import { validationHook } from "../validation.ts";

/**
 * Where an MCP app's authorization server sends the user back (per-user OAuth 2.1, code + PKCE).
 * No API key: the signed `state` names the user's spoke, which redeems the code once and keeps the
 * tokens; the query waiting on the `authorize` consent then goes on.
 */
const Callback = z.object({
  state: z.string().min(1).max(2048),
  code: z.string().min(1).max(4096).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
});

const callback = createRoute({
  method: "get",
  path: "/callback",
  tags: ["users"],
  summary: "The OAuth redirect of an MCP app's authorization server (opened by the user's browser)",
  request: { query: Callback },
  responses: {
    200: {
      description: "A page telling the user they may close it",
      content: { "text/html": { schema: z.string() } },
    },
    400: { description: "A state Lattice did not issue, or a code already used" },
  },
});

const page = (text: string) => `<!doctype html><meta charset="utf-8"><title>Lattice</title><p>${text}</p>`;

export const oauthRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  callback,
  async (c) => {
    const { state, code, iss, error } = c.req.valid("query");
    const secret = c.env.LATTICE_KEY_SECRET;
    const owner = secret ? await decodeState(secret, state) : null;
    if (!owner)
      throw invalid("not an authorization Lattice asked for", [{ field: "query.state", message: "unknown" }]);
    if (!code && !error) throw invalid("the callback carries neither a code nor an error", []);
    const spoke = spokeStub(c.env, owner.tenantId, owner.userId, owner.appId);
    let asked: Awaited<ReturnType<typeof spoke.completeAuthorization>>;
    try {
      asked = await spoke.completeAuthorization({
        ...owner,
        nonce: owner.nonce,
        code: code ?? null,
        ...(iss !== undefined && { iss }),
      });
    } catch (cause) {
      // The token endpoint refused the code (or did not answer): the user may try again from the query.
      throw new ApiError(
        400,
        "authorization_failed",
        "the app's authorization server did not accept the code",
        undefined,
        cause,
      );
    }
    if (!asked) throw invalid("this authorization was already completed or has expired", []);
    const hub = hubStub(c.env, owner.tenantId, asked.sessionId);
    await hub.authorizationDone(asked.queryId, asked.subject, code !== undefined);
    return c.html(
      page(code ? "You are signed in to the app. You can close this window." : "The app was not authorized."),
      200,
    );
  },
);
