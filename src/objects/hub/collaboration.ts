import { assess, type Policy, policyLattices } from "../../policy/index.ts";
import type { Env } from "../../worker/env.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import type { Rpc } from "../rpc.ts";
import type { Sql } from "../sql.ts";
import { spokeStub } from "../stubs.ts";
import type { TenantDO } from "../tenant/index.ts";
import type { Consent, ConsentStore } from "./consents.ts";
import { ephemeralId, resolveEphemeral } from "./ephemeral.ts";
import type { PlanningSnapshot } from "./planner.ts";
import type { HubStore, Session } from "./store.ts";

/**
 * Collaboration between spokes (IsolateGPT's ISC), always through the hub. A spoke's model asks for
 * a functionality by its shared name (a category such as ride.quote) from the catalog the tenant's
 * store knows — registered apps, approved or not, so the answer says nothing about what this user
 * has installed. It gets an ephemeral id and the formats; a request under that id needs the user's
 * `collaboration` consent, then the hub relays it to the serving app's spoke and checks the answer.
 */

export interface Discovery {
  fxId: string;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
}

export interface CollaborationRequest {
  queryId: string;
  stepKey: string;
  fromApp: string;
  fxId: string;
  request: unknown;
  readUntrusted: boolean;
}

export type CollaborationReply =
  | { state: "pending"; consentId: string }
  | { state: "denied" | "expired" | "dropped"; message: string }
  /** `confidentiality`: the answering app's declared output level, joined into the asking step's label. */
  | { state: "answered"; value: unknown; confidentiality: string }
  | { state: "failed"; message: string };

/** The pseudo app id under which a category (not an app) gets its ephemeral id. */
const CATEGORY = "category";

export async function discover(sql: Sql, tenant: Rpc<TenantDO>, name: string): Promise<Discovery | null> {
  // Formats come from reviewed, serving versions only: a pending manifest's text reaches no agent.
  const known = (await tenant.servingApps()).flatMap((app) =>
    app.manifest.functionalities.filter((f) => f.category === name),
  );
  const formats = known[0];
  if (!formats) return null;
  return {
    fxId: ephemeralId(sql, { appId: CATEGORY, functionality: name }),
    request: formats.request,
    response: formats.response,
  };
}

export interface CollaborationContext {
  sql: Sql;
  store: HubStore;
  consents: ConsentStore;
  env: Env;
  session: Session;
  tenant: Rpc<TenantDO>;
  audit(type: string, detail: Record<string, unknown>): void;
}

/** Checks the id and the message, then asks the user; a forged or stale id is dropped and logged. */
export async function requestCollaboration(
  c: CollaborationContext,
  req: CollaborationRequest,
): Promise<CollaborationReply> {
  const ref = resolveEphemeral(c.sql, req.fxId);
  if (!ref || ref.appId !== CATEGORY) {
    c.audit("forged_ephemeral_id", { queryId: req.queryId, fromApp: req.fromApp, fxId: req.fxId });
    return { state: "dropped", message: "unknown functionality id" };
  }
  const query = c.store.query(req.queryId);
  if (!query?.context || !query.plan) return { state: "failed", message: "no running query" };
  const { policy, snapshot } = JSON.parse(query.context) as { policy: Policy; snapshot: PlanningSnapshot };
  const options = snapshot.alternatives[ref.functionality] ?? [];
  if (!options.length) return { state: "failed", message: `${ref.functionality} is not available` };
  const inPlan = options.some((o) => query.plan!.includes(`"${o.tool}"`));
  // What the asking agent may carry: up to its own clearance and what its app returns. A target
  // cleared lower gets a warning (the user sees the concrete data and decides).
  const l = policyLattices(policy);
  const fromEntry = Object.entries(snapshot.catalog).find(([tool]) =>
    tool.startsWith(`${req.fromApp}.`),
  )?.[1];
  const conf = l.confidentiality;
  const higher = (a: string, b: string) => (conf.rank(a) >= conf.rank(b) ? a : b);
  const carried = fromEntry ? higher(fromEntry.clearance, fromEntry.output.confidentiality) : conf.top;
  const lowCleared = options.filter(
    (o) => conf.rank(snapshot.catalog[o.tool]?.clearance ?? conf.bottom) < conf.rank(carried),
  );
  const base = assess({
    tool: ref.functionality,
    app: ref.functionality,
    irreversible: options.some((o) => snapshot.catalog[o.tool]?.irreversible),
    violations: [],
    origins: [req.fromApp],
    inPlan,
    requester: { app: req.fromApp, readUntrusted: req.readUntrusted },
  });
  const reasons = lowCleared.map(
    (o) =>
      `${req.fromApp} may hold ${carried} data; ${o.app} is cleared only for ${snapshot.catalog[o.tool]?.clearance}`,
  );
  const assessment = reasons.length
    ? { verdict: "warning" as const, reasons: [...base.reasons, ...reasons] }
    : base;
  const consent = c.consents.ask({
    queryId: req.queryId,
    stepKey: req.stepKey,
    kind: "collaboration",
    subject: `collaboration:${randomId("c", 6)}`,
    grantSubject: null,
    request: {
      from: [req.fromApp],
      functionality: ref.functionality,
      data: req.request,
      assessment,
      scopes: ["once"],
      options,
    },
    timeoutSeconds: policy.consent.timeoutSeconds,
  });
  c.store.emit(req.queryId, "consent_requested", {
    consentId: consent.id,
    kind: "collaboration",
    from: req.fromApp,
  });
  c.audit("consent_asked", {
    queryId: req.queryId,
    consentId: consent.id,
    kind: "collaboration",
    assessment,
  });
  return { state: "pending", consentId: consent.id };
}

/** Where a collaboration stands; once allowed, the hub relays the request and returns the checked answer. */
export async function collaborationOutcome(
  c: CollaborationContext,
  consentId: string,
): Promise<CollaborationReply> {
  const consent = c.consents.get(consentId);
  if (consent?.kind !== "collaboration") return { state: "dropped", message: "unknown consent" };
  if (consent.status === "pending") {
    if (Date.parse(consent.expiresAt) > Date.now()) return { state: "pending", consentId };
    c.consents.settle(consent.id, "expired", null, null);
    return { state: "expired", message: "nobody answered in time" };
  }
  if (consent.status !== "allowed")
    return { state: consent.status, message: `the user ${consent.status} it` };
  return relay(c, consent);
}

async function relay(c: CollaborationContext, consent: Consent): Promise<CollaborationReply> {
  // One answer, one relay: the journal marks it before the request leaves.
  const mark = `collaboration:${consent.id}`;
  if (c.store.journal(consent.queryId).has(mark))
    return { state: "failed", message: "this request was already relayed" };
  c.store.journalStarted(consent.queryId, mark, "collaboration", {});
  const tool = consent.choice ?? consent.options?.[0]?.tool;
  const query = c.store.query(consent.queryId);
  const snapshot = (JSON.parse(query!.context!) as { snapshot: PlanningSnapshot }).snapshot;
  const appId = tool ? snapshot.apps[tool] : undefined;
  if (!tool || !appId) return { state: "failed", message: "no app serves this functionality" };
  const spoke = spokeStub(c.env, c.session.tenantId, c.session.userId, appId);
  const result = await spoke.call({
    tenantId: c.session.tenantId,
    userId: c.session.userId,
    appId,
    functionality: tool.slice(tool.indexOf(".") + 1),
    request: consent.data,
    callId: randomId("call"),
    idempotencyKey: await sha256Hex(`${c.session.id}:${consent.id}`),
    remember: !c.session.private,
  });
  c.store.emit(consent.queryId, "collaboration_relayed", { consentId: consent.id, tool, ok: result.ok });
  if (!result.ok) {
    c.audit("collaboration_failed", { consentId: consent.id, tool, code: result.code });
    return { state: "failed", message: result.message };
  }
  const confidentiality = snapshot.catalog[tool]?.output.confidentiality ?? "";
  return { state: "answered", value: result.value, confidentiality };
}
