import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { flushAudit } from "../../objects/audit-sink.ts";
import { EXPORT_MAX_BYTES, jsonBytes } from "../../objects/export-budget.ts";
import type { HubExport } from "../../objects/hub/user-data.ts";
import type { SpokeExport } from "../../objects/spoke/user-data.ts";
import { artifactsStub, hubStub, spokeStub, tenantAdmin } from "../../objects/stubs.ts";
import { tenantPolicy } from "../../objects/tenant-replica/index.ts";
import { displayRequirement, flowAllowed, type Label, policyLattices } from "../../policy/index.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonResponse } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { validationHook } from "../validation.ts";

/**
 * A user's data rights (#34): everything Lattice holds about one user, exported as one document or
 * erased. What exists is found through the user's index (ArtifactsDO.userObjects): the sessions and
 * spokes named there when each was first opened or used.
 */

/** The export document's version: a reader checks it before it reads the sections. */
export const EXPORT_FORMAT = "lattice.user-export.v1";
/** Sessions an export carries at most (oldest first), and queries per session: past either, `truncated`. */
export const EXPORT_MAX_SESSIONS = 200;
export const EXPORT_MAX_QUERIES = 200;

const UserParam = z.object({ userId: UserIdSchema });
const security = [{ bearer: [] }];
const Truncated = z.object({
  sessions: z.boolean(),
  artifacts: z.boolean(),
  audit: z.boolean(),
  queries: z.array(z.string()).openapi({
    description: "Sessions whose queries were cut, at the count cap or the byte cap (oldest kept)",
  }),
  memory: z
    .array(z.string())
    .openapi({ description: "Apps whose memory was cut at the export's byte cap (oldest kept)" }),
});

const UserExport = z
  .object({
    format: z.literal(EXPORT_FORMAT),
    exportedAt: z.string(),
    userId: z.string(),
    truncated: Truncated,
    sessions: z.array(
      z.object({ session: z.unknown(), queries: z.array(z.unknown()), truncated: z.boolean() }),
    ),
    artifacts: z.array(
      z.object({
        metadata: z.unknown(),
        value: z.unknown().optional(),
        withheld: z.literal(true).optional().openapi({
          description: "Set instead of `value` (user token only) when the label is above the display cap",
        }),
      }),
    ),
    grants: z.array(z.unknown()),
    standingRules: z.array(z.unknown()),
    spokes: z.array(
      z.object({
        appId: z.string(),
        memory: z.array(z.unknown()).openapi({
          description:
            "Remembered interactions; for a user token, one labeled above the display cap (or unlabeled) " +
            "comes as `{functionality, outcome, at, levels, withheld: true}`",
        }),
        oauth: z.array(
          z.object({
            tokenUrl: z.string(),
            clientId: z.string(),
            resource: z.string(),
            scope: z.string().nullable(),
            connectedAt: z.string(),
          }),
        ),
        personalTokens: z
          .array(z.object({ serverUrl: z.string(), setAt: z.string() }))
          .openapi({ description: "Servers the user gave a personal token for (never the token)" }),
      }),
    ),
    userTokens: z.object({ stored: z.literal(false) }).openapi({
      description: "User tokens are signed, not stored: there is nothing of them to export or erase",
    }),
    audit: z.array(z.unknown()),
  })
  .openapi("UserExport");

const Revocation = z.enum(["revoked", "failed", "no_endpoint", "none"]);
const ErasureReport = z
  .object({
    userId: z.string(),
    erasedAt: z.string(),
    cleared: z.object({
      sessions: z.number(),
      queries: z.number(),
      events: z.number(),
      consents: z.number(),
      displayItems: z.number(),
      artifacts: z.number(),
      grants: z.number(),
      standingRules: z.number(),
      spokes: z.number(),
      memoryInteractions: z.number(),
      oauthTokens: z.number(),
      personalTokens: z.number(),
      auditRedacted: z.number(),
    }),
    oauth: z.array(z.object({ appId: z.string(), revocation: Revocation })),
    revocationFailed: z
      .array(z.string())
      .openapi({ description: "Apps whose server did not take the revocation" }),
  })
  .openapi("UserErasure");

const exportRoute = createRoute({
  method: "get",
  path: "/{userId}/export",
  tags: ["frontend", "admin"],
  summary: "Everything Lattice holds about a user, as one JSON document (admin key, or the user's own token)",
  security,
  request: { params: UserParam },
  responses: { 200: jsonResponse(UserExport, "The user's data"), ...authErrors },
});

const eraseRoute = createRoute({
  method: "delete",
  path: "/{userId}",
  tags: ["frontend", "admin"],
  summary: "Erase a user: every object cleared, OAuth tokens revoked, audit values redacted (idempotent)",
  security,
  request: { params: UserParam },
  responses: { 200: jsonResponse(ErasureReport, "What was cleared"), ...authErrors },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin", "frontend"));

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

/**
 * An admin key for any user; a user token for its own user only. A frontend API key is refused: it
 * acts for every user of the chat product, and a user's whole history (or its erasure) is theirs
 * or the tenant admin's to ask for, not the chat server's. A consent link reaches nothing here.
 */
function mayAct(c: Ctx, userId: string): void {
  const { role, user, link } = c.var.principal;
  if (role === "admin" && !user && !link) return;
  if (user && !link && user.userId === userId) return;
  throw new ApiError(403, "forbidden", {
    message: "a user's export and erasure need an admin key or that user's own user token",
  });
}

type Shown = { label: (label: Label) => boolean; level: (confidentiality: string) => boolean };

/** What may reach the frontend under the tenant's display policy (the artifacts route's check). */
async function displayFilter(env: AppEnv["Bindings"], tenantId: string): Promise<Shown> {
  const policy = await tenantPolicy(env, tenantId);
  const l = policyLattices(policy);
  const req = displayRequirement(policy, l);
  return {
    label: (label) => flowAllowed(l, label, req),
    // Memory keeps confidentiality levels only; the display's integrity floor is the bottom anyway.
    level: (c) => flowAllowed(l, { confidentiality: c, integrity: l.integrity.top }, req),
  };
}

/**
 * A remembered interaction is shown when every level it holds is within the cap. Unlabeled (null)
 * memory was never given a label by the hub, so nothing says it may be shown: withheld, as an agent
 * never reads it either.
 */
function memoryShown(shown: Shown, levels: string[] | null): boolean {
  return levels?.every(shown.level) === true;
}

function withheldMemory(m: { functionality: string; outcome: string; at: string; levels: string[] | null }) {
  return { functionality: m.functionality, outcome: m.outcome, at: m.at, levels: m.levels, withheld: true };
}

export const userDataRoutes = base
  .openapi(exportRoute, async (c) => {
    const { userId } = c.req.valid("param");
    mayAct(c, userId);
    const { tenantId } = c.var.principal;
    const artifacts = artifactsStub(c.env, tenantId, userId);
    const index = await artifacts.userObjects();
    const sessionIds = index.sessions.slice(0, EXPORT_MAX_SESSIONS);
    await flushAudit(tenantId); // this isolate's rows about the user are in the log first
    // One byte budget for the document (EXPORT_MAX_BYTES): the audit (capped by rows) is counted
    // first, then artifacts newest first, sessions oldest first and each app's memory. Each object is
    // asked in turn with what is left and builds no more (export-budget.ts), so a heavy user gets
    // `truncated`, never a response too large to build or send.
    const audit = await tenantAdmin(c.env, tenantId).userAudit(userId);
    const left = (used: number) => Math.max(0, EXPORT_MAX_BYTES - used);
    const held = await artifacts.exportData(left(jsonBytes(audit.events)));
    let bytes = held.bytes + jsonBytes(audit.events);
    const kept: HubExport[] = [];
    let sessionsCut = index.sessions.length > EXPORT_MAX_SESSIONS;
    for (const sid of sessionIds) {
      const s = await hubStub(c.env, tenantId, sid).exportData(EXPORT_MAX_QUERIES, left(bytes));
      if (!s) continue;
      const size = jsonBytes(s) + 1;
      // A session with none of its queries still does not fit: it and the later ones are left out.
      if (bytes + size > EXPORT_MAX_BYTES) {
        sessionsCut = true;
        break;
      }
      bytes += size;
      kept.push(s);
    }
    const memoryCut: string[] = [];
    const spokesHeld: Array<Omit<SpokeExport, "memoryTruncated">> = [];
    for (const app of index.spokes) {
      const s = await spokeStub(c.env, tenantId, userId, app).exportData(left(bytes));
      if (!s) continue;
      const { memoryTruncated, ...shown } = s;
      bytes += jsonBytes(shown) + 1; // the app and its connections are named even past the budget
      if (memoryTruncated) memoryCut.push(s.appId);
      spokesHeld.push(shown);
    }
    // The display policy is the one boundary to the frontend, and a user token is the frontend's:
    // what the artifacts route would withhold, the export withholds too. The admin key answers the
    // data-rights request itself and reads everything.
    const shown = c.var.principal.user ? await displayFilter(c.env, tenantId) : null;
    const artifactsOut = shown
      ? held.artifacts.map((a) =>
          shown.label(a.metadata.label) ? a : { metadata: a.metadata, withheld: true as const },
        )
      : held.artifacts;
    const spokesOut = spokesHeld.flatMap((s) => {
      if (!shown) return [s];
      const memory = s.memory.map((m) => (memoryShown(shown, m.levels) ? m : withheldMemory(m)));
      return [{ ...s, memory }];
    });
    const body = {
      format: EXPORT_FORMAT,
      exportedAt: new Date().toISOString(),
      userId,
      truncated: {
        sessions: sessionsCut,
        artifacts: held.artifactsTruncated,
        audit: audit.truncated,
        queries: kept.filter((s) => s.truncated).map((s) => s.session.id),
        memory: memoryCut,
      },
      sessions: kept,
      artifacts: artifactsOut,
      grants: held.grants,
      standingRules: held.standingRules,
      spokes: spokesOut,
      userTokens: { stored: false as const },
      audit: audit.events,
    };
    return c.json(body as never, 200);
  })
  .openapi(eraseRoute, async (c) => {
    const { userId } = c.req.valid("param");
    mayAct(c, userId);
    const { tenantId, keyId, user } = c.var.principal;
    const artifacts = artifactsStub(c.env, tenantId, userId);
    const index = await artifacts.userObjects();
    // Sessions first (a live query stops before anything it reads goes), then spokes (tokens revoked).
    const hubs = await Promise.all(index.sessions.map((sid) => hubStub(c.env, tenantId, sid).erase()));
    const spokes = await Promise.all(
      index.spokes.map((app) => spokeStub(c.env, tenantId, userId, app).erase()),
    );
    const held = await artifacts.erase();
    const sum = <T>(list: T[], pick: (t: T) => number) => list.reduce((n, t) => n + pick(t), 0);
    const oauth = spokes.flatMap((s) =>
      s.appId && s.revocation !== "none" ? [{ appId: s.appId, revocation: s.revocation }] : [],
    );
    const cleared = {
      sessions: hubs.filter((h) => h.queries + h.events + h.consents + h.displayItems > 0).length,
      queries: sum(hubs, (h) => h.queries),
      events: sum(hubs, (h) => h.events),
      consents: sum(hubs, (h) => h.consents),
      displayItems: sum(hubs, (h) => h.displayItems),
      artifacts: held.artifacts,
      grants: held.grants,
      standingRules: held.standingRules,
      spokes: spokes.filter((s) => s.appId !== null).length,
      memoryInteractions: sum(spokes, (s) => s.interactions),
      oauthTokens: sum(spokes, (s) => s.oauthTokens),
      personalTokens: sum(spokes, (s) => s.personalTokens),
    };
    // Rows this isolate holds for the tenant (the hubs' and spokes' last events) are in the log
    // before it is redacted; the erasure is recorded there with what it cleared.
    await flushAudit(tenantId);
    const by = { keyId, viaUserToken: user !== undefined };
    const { auditRedacted } = await tenantAdmin(c.env, tenantId).userErased(userId, {
      ...by,
      cleared,
      oauth,
    });
    // The index goes last: an erasure cut short is found whole by the next one.
    // Only the rows read at the start, as read: one noted again meanwhile names an object made after
    // its erasure, which the index must keep finding.
    await artifacts.forgetObjects(index.seen);
    const revocationFailed = oauth.filter((o) => o.revocation === "failed").map((o) => o.appId);
    return c.json(
      {
        userId,
        erasedAt: new Date().toISOString(),
        cleared: { ...cleared, auditRedacted },
        oauth,
        revocationFailed,
      },
      200,
    );
  });
