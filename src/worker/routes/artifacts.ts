import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { ArtifactsDO } from "../../objects/artifacts/index.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { artifactsStub } from "../../objects/stubs.ts";
import { tenantPolicy } from "../../objects/tenant-replica/index.ts";
import { displayRequirement, flowAllowed, policyLattices } from "../../policy/index.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { ownUser, requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonResponse, notFoundError } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { validationHook } from "../validation.ts";

const LabelSchema = z.object({ confidentiality: z.string(), integrity: z.string() }).openapi("Label");
const ArtifactMetadataSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    schema: z.unknown(),
    intent: z.string(),
    semantics: z.string(),
    query: z.string(),
    label: LabelSchema,
    sessionId: z.string(),
    queryId: z.string(),
    plannedIn: z.enum(["catalog", "apps"]).openapi({
      description:
        "The planning mode of the query that made it (catalog-mode planners read only catalog-made metadata)",
    }),
    createdAt: z.string(),
  })
  .openapi("ArtifactMetadata");
const ArtifactSchema = z
  .object({
    metadata: ArtifactMetadataSchema,
    value: z.unknown().optional(),
    withheld: z.literal(true).optional().openapi({
      description: "Set instead of `value` when the artifact's label is above the display policy's cap",
    }),
  })
  .openapi("Artifact");

const UserParam = z.object({ userId: UserIdSchema });
const ArtifactParam = UserParam.extend({ aid: z.string().min(1).max(64) });
const security = [{ bearer: [] }];

const list = createRoute({
  method: "get",
  path: "/{userId}/artifacts",
  tags: ["frontend"],
  summary: "The user's artifacts: metadata only, newest first",
  security,
  request: {
    params: UserParam,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(100),
      offset: z.coerce.number().int().min(0).default(0),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ artifacts: z.array(ArtifactMetadataSchema), total: z.number() }),
      "Metadata",
    ),
    ...authErrors,
  },
});

const read = createRoute({
  method: "get",
  path: "/{userId}/artifacts/{aid}",
  tags: ["frontend"],
  summary: "One artifact's value with its labels (for the user; never shown to planners)",
  security,
  request: { params: ArtifactParam },
  responses: { 200: jsonResponse(ArtifactSchema, "The artifact"), ...authErrors, ...notFoundError },
});

const erase = createRoute({
  method: "delete",
  path: "/{userId}/artifacts/{aid}",
  tags: ["frontend"],
  summary: "Erase an artifact",
  security,
  request: { params: ArtifactParam },
  responses: {
    200: jsonResponse(z.object({ deleted: z.literal(true) }), "Erased"),
    ...authErrors,
    ...notFoundError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));

export const artifactRoutes = base
  .openapi(list, async (c) => {
    const artifacts = artifactsOf(c, c.req.valid("param").userId);
    const { limit, offset } = c.req.valid("query");
    return c.json(
      { artifacts: await artifacts.listMetadata(limit, offset), total: await artifacts.count() },
      200,
    );
  })
  .openapi(read, async (c) => {
    const { userId, aid } = c.req.valid("param");
    const artifact = await artifactsOf(c, userId).get(aid);
    if (!artifact) throw notFound("artifact");
    // The display policy is the one boundary to the frontend: a saved value above it stays saved, unread.
    const policy = await tenantPolicy(c.env, c.var.principal.tenantId);
    const l = policyLattices(policy);
    if (!flowAllowed(l, artifact.metadata.label, displayRequirement(policy, l)))
      return c.json({ metadata: artifact.metadata, withheld: true as const }, 200);
    return c.json(artifact, 200);
  })
  .openapi(erase, async (c) => {
    const { userId, aid } = c.req.valid("param");
    if (!(await artifactsOf(c, userId).delete(aid))) throw notFound("artifact");
    return c.json({ deleted: true as const }, 200);
  });

export function artifactsOf(
  c: { env: AppEnv["Bindings"]; var: AppEnv["Variables"] },
  userId: string,
): Rpc<ArtifactsDO> {
  // A user token reaches only its own user's artifacts and grants; another user's do not exist for it.
  if (!ownUser(c, userId)) throw notFound("user");
  return artifactsStub(c.env, c.var.principal.tenantId, userId);
}
