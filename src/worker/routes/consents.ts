import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { answererOf, openHub } from "../hub.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { SessionParam } from "../schemas/ids.ts";
import { ConsentSchema } from "../schemas/sessions.ts";
import { validationHook } from "../validation.ts";

const security = [{ bearer: [] }];

const list = createRoute({
  method: "get",
  path: "/{sid}/consents",
  tags: ["frontend"],
  summary: "Consent requests of the session (e.g. ?status=pending)",
  security,
  request: {
    params: SessionParam,
    query: z.object({ status: z.enum(["pending", "allowed", "denied", "expired"]).optional() }),
  },
  responses: {
    200: jsonResponse(z.object({ consents: z.array(ConsentSchema) }), "Consents"),
    ...authErrors,
    ...notFoundError,
  },
});

const read = createRoute({
  method: "get",
  path: "/{sid}/consents/{cid}",
  tags: ["frontend"],
  summary: "One consent request of the session (a consent link reads its own)",
  security,
  request: { params: SessionParam.extend({ cid: z.string().min(1).max(64) }) },
  responses: {
    200: jsonResponse(ConsentSchema, "The consent"),
    ...authErrors,
    ...notFoundError,
  },
});

const answer = createRoute({
  method: "post",
  path: "/{sid}/consents/{cid}",
  tags: ["frontend"],
  summary: "Answer a consent; permanent (or session) scope is refused for kinds that allow only once",
  security,
  request: {
    params: SessionParam.extend({ cid: z.string().min(1).max(64) }),
    ...jsonBody(
      z
        .object({
          decision: z.enum(["allow", "deny"]),
          scope: z.enum(["once", "session", "permanent"]).default("once"),
          choice: z.string().max(200).optional().openapi({ description: "app_selection: the tool picked" }),
        })
        .strict()
        .openapi("ConsentAnswer"),
    ),
  },
  responses: {
    200: jsonResponse(ConsentSchema, "The answered consent"),
    ...authErrors,
    ...notFoundError,
    ...conflictError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));

export const consentRoutes = base
  .openapi(list, async (c) => {
    const hub = await openHub(c, c.req.valid("param").sid);
    return c.json({ consents: await hub.consents(c.req.valid("query")) }, 200);
  })
  .openapi(read, async (c) => {
    const { sid, cid } = c.req.valid("param");
    if (!linkedTo(c, cid)) throw notFound("consent");
    // Read from the session's list: hub/index.ts is near the file limit, and a session's consents are few.
    const hub = await openHub(c, sid);
    const consents = await hub.consents();
    const consent = consents.find((one) => one.id === cid);
    if (!consent) throw notFound("consent");
    // The request it answers, in the user's own words: what tells two pending consents apart.
    const query = await hub.query(consent.queryId);
    const read = { ...consent, ...(query && { request: { text: query.text } }) };
    // Through a link the page offers what the link may answer: once (see `answer`).
    if (c.var.principal.link) return c.json({ ...read, scopes: consent.scopes.filter(linkScope) }, 200);
    return c.json(read, 200);
  })
  .openapi(answer, async (c) => {
    const { sid, cid } = c.req.valid("param");
    if (!linkedTo(c, cid)) throw notFound("consent");
    const body = c.req.valid("json");
    // Whoever sees the chat's text holds its link: it may answer this consent, never leave a
    // grant that outlives it (#43).
    if (c.var.principal.link && !linkScope(body.scope)) {
      throw invalid("a consent link answers with scope once only: a lasting grant is given in the console", [
        { field: "body.scope", message: "allowed through a consent link: once" },
      ]);
    }
    const result = await (await openHub(c, sid)).answerConsent(cid, body, answererOf(c));
    if (result.ok) return c.json(result.consent, 200);
    switch (result.code) {
      case "not_found":
        throw notFound("consent");
      case "already_answered":
        throw conflict(`this consent was already answered (${result.details.status})`);
      case "query_finished":
        throw conflict("the query this consent belongs to is no longer waiting for it");
      case "invalid_choice":
        throw invalid("choose one of the consent's options", [
          { field: "body.choice", message: "not an option" },
        ]);
      case "scope_not_allowed":
        throw invalid(`this consent allows only: ${result.details.allowed.join(", ")}`, [
          { field: "body.scope", message: `allowed: ${result.details.allowed.join(", ")}` },
        ]);
    }
  });

/** The one scope a consent link answers with. */
const linkScope = (scope: string) => scope === "once";

/** A consent link answers its own consent only (the edge holds it to that path already). */
const linkedTo = (c: { var: AppEnv["Variables"] }, cid: string) => {
  const link = c.var.principal.link;
  return !link || link.consentId === cid;
};
