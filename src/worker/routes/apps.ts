import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { manifestProblems } from "../../apps/check.ts";
import { modeOf } from "../../apps/egress.ts";
import { Manifest } from "../../apps/manifest.ts";
import type { SpokeCall } from "../../contracts.ts";
import { randomId } from "../../objects/crypto.ts";
import { tryUserId } from "../../objects/names.ts";
import { spokeStub } from "../../objects/stubs.ts";
import { defencesOf } from "../../runtime/index.ts";
import { auditLater } from "../audit.ts";
import type { AppEnv } from "../env.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { importMcp, type PendingCredential } from "../mcp-import.ts";
import { requireRole, withinLimit } from "../middleware/auth/index.ts";
import { AppSchema, RegisteredAppSchema } from "../schemas/apps.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { TryRequestSchema, TryResultSchema } from "../schemas/try.ts";
import { tenantOf } from "../tenant.ts";
import { judged } from "../try.ts";
import { validationHook } from "../validation.ts";

const security = [{ bearer: [] }];
const AppIdParam = z.object({ appId: z.string().min(1).max(64) });

const register = createRoute({
  method: "post",
  path: "/",
  tags: ["developer"],
  summary: "Register an app; version 1 is pending review; the HMAC secret is returned once",
  security,
  request: jsonBody(Manifest),
  responses: {
    201: jsonResponse(RegisteredAppSchema, "The app, its first version and its signing secret"),
    ...authErrors,
    ...conflictError,
  },
});

const update = createRoute({
  method: "put",
  path: "/{appId}",
  tags: ["developer"],
  summary: "Submit a new version (back to pending; the approved one keeps serving)",
  security,
  request: { params: AppIdParam, ...jsonBody(Manifest) },
  responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError },
});

const read = createRoute({
  method: "get",
  path: "/{appId}",
  tags: ["developer"],
  summary: "One of your own apps, with its versions and review state",
  security,
  request: { params: AppIdParam },
  responses: { 200: jsonResponse(AppSchema, "The app"), ...authErrors, ...notFoundError },
});

const mine = createRoute({
  method: "get",
  path: "/",
  tags: ["developer"],
  summary: "Your own apps (those this developer key registered), with their versions and review state",
  security,
  responses: { 200: jsonResponse(z.object({ apps: z.array(AppSchema) }), "The apps"), ...authErrors },
});

/** The body is optional: without one, the defaults (an overlapping rotation). */
const RotateSecret = z
  .object({ immediate: z.boolean().default(false) })
  .strict()
  .openapi("RotateSecret");

const rotate = createRoute({
  method: "post",
  path: "/{appId}/secret",
  tags: ["developer"],
  summary:
    "Rotate the signing secret: the new one is returned once; the old one stays valid for 24 hours (none with immediate)",
  security,
  request: {
    params: AppIdParam,
    ...jsonBody(RotateSecret, false),
  },
  responses: {
    200: jsonResponse(
      z.object({ secret: z.string(), previousValidUntil: z.string() }).openapi("RotatedSecret"),
      "The new secret; Lattice signs with both until previousValidUntil",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const VersionParam = AppIdParam.extend({ version: z.coerce.number().int().min(1) });

const tryIt = createRoute({
  method: "post",
  path: "/{appId}/versions/{version}/try",
  tags: ["developer"],
  summary:
    "Try one functionality of your own pending or approved version, as a plan step would call it, as a synthetic user",
  description:
    "The call goes through a spoke with the same signing, schema checks both ways, egress guard, labels, timeout and quota as a plan step's, as a synthetic user no frontend can name, with no planner and no memory kept. The answer shows the request as sent (secret headers redacted), the app's answer as it came, and the judgement. Rate limited per developer key; audited as app_tried.",
  security,
  request: { params: VersionParam, ...jsonBody(TryRequestSchema) },
  responses: {
    200: jsonResponse(TryResultSchema, "The request sent, the answer, and how it was judged"),
    ...authErrors,
    ...notFoundError,
    ...conflictError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("developer"));

export const appRoutes = base
  .openapi(register, async (c) => {
    // The id first: a client registered during the import names its callback URL.
    const newId = randomId("app");
    const { manifest, credential } = await checked(c.req.valid("json"), c, { newAppId: newId });
    const tenant = tenantOf(c);
    const result = await tenant.registerApp(c.var.principal.keyId, manifest, newId);
    if (!result.ok) throw conflict(result.message);
    const { app, secret } = result;
    if (credential) await tenant.storeAppCredential(app.id, credential.boundTo, credential.secret);
    return c.json({ id: app.id, name: app.name, version: 1, status: "pending" as const, secret, app }, 201);
  })
  .openapi(update, async (c) => {
    const { appId } = c.req.valid("param");
    const tenant = tenantOf(c);
    // Only the owner may reuse the app's stored MCP credential for the import.
    const owned = await tenant.ownedApp(c.var.principal.keyId, appId);
    if (!owned) throw notFound("app");
    // Only this app's own latest pending or approved version may hand its discovered OAuth client on
    // (kept-client.ts).
    // (Versions come in version order.)
    const previous = owned.versions.findLast((v) => v.status === "pending" || v.status === "approved");
    const { manifest, credential } = await checked(c.req.valid("json"), c, {
      appId,
      previous: previous?.manifest.mcp,
    });
    const result = await tenant.submitVersion(c.var.principal.keyId, appId, manifest);
    if (result.ok && credential)
      await tenant.storeAppCredential(appId, credential.boundTo, credential.secret);
    if (!result.ok) {
      if (result.code === "not_found") throw notFound("app");
      throw invalid("an app's name cannot change", [
        { field: "body.name", message: "plans and policies use it" },
      ]);
    }
    return c.json(result.app, 200);
  })
  .openapi(rotate, async (c) => {
    const { immediate } = RotateSecret.parse(c.req.valid("json") ?? {});
    const rotated = await tenantOf(c).rotateSecret(
      c.var.principal.keyId,
      c.req.valid("param").appId,
      immediate,
    );
    if (!rotated) throw notFound("app");
    return c.json(rotated, 200);
  })
  .openapi(tryIt, async (c) => {
    const { appId, version } = c.req.valid("param");
    const { functionality, input } = c.req.valid("json");
    const keyId = c.var.principal.keyId;
    await withinLimit(c.env, c.env.TRY_LIMITER, keyId, "too many try-it calls with this developer key");
    const tenant = tenantOf(c);
    // Only the key that registered the app finds it: another developer's app is not found, as if absent.
    const found = await tenant.triableApp(keyId, appId, version);
    if (!found) throw notFound("app version");
    const { app, status } = found;
    if (status !== "pending" && status !== "approved")
      throw conflict(`version ${version} is ${status}: only pending or approved versions can be tried`);
    const fn = app.manifest.functionalities.find((f) => f.name === functionality);
    if (!fn)
      throw invalid(`version ${version} has no functionality ${functionality}`, [
        { field: "body.functionality", message: "not in this version's manifest" },
      ]);
    if (fn.tool && app.manifest.mcp?.auth.type === "oauth")
      throw conflict(
        "this app signs each user in with OAuth; the try-it user has no connection to it, so it cannot be tried here",
      );
    const [{ policy }, catalog] = await Promise.all([tenant.policy(), tenant.catalog()]);
    const user = tryUserId(keyId);
    const tenantId = c.var.principal.tenantId;
    const defences = defencesOf({});
    // As runtime/app-call.ts spokeCallOf builds a plan step's call, less the session: nothing to relay to.
    const call: SpokeCall = {
      tenantId,
      userId: user,
      appId,
      functionality,
      appVersion: version,
      request: input,
      callId: randomId("call"),
      idempotencyKey: randomId("try"),
      checkPins: defences.pins,
      remember: false,
      limits: { timeoutMs: policy.limits.appTimeoutMs },
      agent: {
        modelTimeoutMs: policy.limits.modelTimeoutMs,
        selfCorrection: policy.selfCorrection,
        checks: defences.visor,
        trustedArgs: [],
        destinations: [],
      },
    };
    const report = await spokeStub(c.env, tenantId, user, appId).tryCall(call, app);
    const result = judged({
      app,
      status,
      functionality,
      user,
      report,
      policy,
      catalog: catalog.entries,
    });
    await auditLater(c, "app_tried", { appId, version, functionality, keyId, outcome: result.outcome });
    return c.json(result, 200);
  })
  .openapi(mine, async (c) => c.json({ apps: await tenantOf(c).ownedApps(c.var.principal.keyId) }, 200))
  .openapi(read, async (c) => {
    // Only the registering developer key sees the app: other developers get 404, not a hint.
    const app = await tenantOf(c).ownedApp(c.var.principal.keyId, c.req.valid("param").appId);
    if (!app) throw notFound("app");
    return c.json(app, 200);
  });

/** Label levels are the tenant's own lattices (its policy), not the defaults; MCP tools imported first. */
async function checked(
  submitted: Manifest,
  c: { env: AppEnv["Bindings"]; var: AppEnv["Variables"] },
  app: Parameters<typeof importMcp>[2],
): Promise<{ manifest: Manifest; credential: PendingCredential | null }> {
  const { manifest, credential } = await importMcp(submitted, c, app);
  const { policy } = await tenantOf(c).policy();
  const problems = manifestProblems(manifest, {
    mode: modeOf(c.env),
    confidentialityLevels: policy.lattices.confidentiality,
    integrityLevels: policy.lattices.integrity,
  });
  if (problems.length) throw invalid("manifest refused", problems);
  return { manifest, credential };
}
