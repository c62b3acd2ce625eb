import { servedSource } from "../../apps/destination-review.ts";
import type { AuditType } from "../../audit-types.ts";
import type { CollaborationReply, CollaborationRequest, Discovery } from "../../contracts.ts";
import { failure } from "../../result.ts";
import {
  assessCollaboration,
  type Consent,
  collaborationView,
  type LoadedQuery,
  type RelayInput,
  relayCall,
  relayedLevel,
  relayNext,
  relayView,
  shownRequest,
  type Target,
  targetId,
} from "../../runtime/index.ts";
import { randomId } from "../crypto.ts";
import type { Sql } from "../sql.ts";
import { servingState } from "../tenant-replica/index.ts";
import { appCaller } from "./app-call.ts";
import type { ConsentPath } from "./consent-path.ts";
import type { ConsentStore } from "./consents.ts";
import { ephemeralId, resolveEphemeral } from "./ephemeral.ts";
import type { HubStore, Session } from "./store.ts";

/**
 * Collaboration between spokes (IsolateGPT's ISC), always through the hub. A spoke's model asks for
 * a functionality by its shared name: a catalog entry (catalog mode) or a category such as
 * ride.quote (apps mode). It gets an ephemeral id and the formats; a request under that id needs the user's
 * `collaboration` consent (the runtime assesses it), then the hub relays it to the chosen app's spoke.
 */

/** The pseudo app id under which a category (not an app) gets its ephemeral id. */
const CATEGORY = "category";

export interface CollaborationContext {
  sql: Sql;
  store: HubStore;
  consents: ConsentStore;
  /** Every consent's ask and settlement (consent-path.ts). */
  path: ConsentPath;
  env: Env;
  session: Session;
  /** The query, as verified; null if it has no plan yet. */
  load(queryId: string): LoadedQuery | null;
  audit(type: AuditType, detail: Record<string, unknown>): void;
}

export async function discover(
  sql: Sql,
  env: Env,
  tenantId: string,
  name: string,
): Promise<Discovery | null> {
  const { policy, catalog, apps } = (await servingState(env, tenantId)).view;
  const fxId = () => ephemeralId(sql, { appId: CATEGORY, functionality: name });
  // Catalog mode: a catalog entry some serving app is bound to, in the admin's formats and words.
  if (policy.planning.mode === "catalog") {
    const entry = catalog.find(
      (e) => e.name === name && apps.some((a) => Object.values(a.bindings).includes(name)),
    );
    // The admin wrote the entry's destinations but confirmed no list: the rule still infers.
    return entry
      ? {
          fxId: fxId(),
          ...pick(entry),
          irreversible: entry.irreversible,
          destinations: entry.destinations,
          confirmed: false,
        }
      : null;
  }
  // Apps mode: a shared category, in the formats of a reviewed, serving version (never a pending
  // manifest's); irreversible if any app serving it is, with every destination any declares, the
  // admin confirmed or the rule finds in its schema.
  const serving = apps.flatMap((app) =>
    app.manifest.functionalities
      .filter((f) => f.category === name)
      .map((f) => [f, app.confirmedDestinations] as const),
  );
  const first = serving[0];
  if (!first) return null;
  const { irreversible, destinations, confirmed } = servedSource(serving);
  return {
    fxId: fxId(),
    ...pick(first[0]),
    irreversible,
    ...(destinations && { destinations }),
    confirmed: confirmed === true,
  };
}

const pick = (f: { request: Record<string, unknown>; response: Record<string, unknown> }) => ({
  request: f.request,
  response: f.response,
});

/** Checks the id and the message, then asks the user; a forged or stale id is dropped and logged. */
export async function requestCollaboration(
  c: CollaborationContext,
  req: CollaborationRequest,
): Promise<CollaborationReply> {
  const ref = resolveEphemeral(c.sql, req.fxId);
  if (!ref || ref.appId !== CATEGORY) {
    // The id as sent is the agent's text: only that one was forged is logged.
    c.audit("forged_ephemeral_id", { queryId: req.queryId, fromApp: req.fromApp });
    return failure("dropped", "unknown functionality id");
  }
  const query = safeLoad(c, req.queryId);
  if (!query) return failure("failed", "no running query");
  const input = relayInput(query, ref.functionality, req);
  const assessed = assessCollaboration(input);
  if (!assessed) return failure("failed", `${ref.functionality} is not available`);
  if ("refused" in assessed) {
    // The same rule as a plan step's: above a target's clearance, or below its floors under reject.
    c.audit("collaboration_refused", {
      queryId: req.queryId,
      fromApp: req.fromApp,
      reasons: assessed.refused,
    });
    return failure("denied", `the policy refuses this request: ${assessed.refused[0]}`);
  }
  const { assessment, options, scopes } = assessed;
  const consent = c.path.ask(
    req.queryId,
    {
      kind: "collaboration",
      stepKey: req.stepKey,
      subject: `collaboration:${randomId("c", 6)}`,
      grantSubject: null,
      request: {
        from: [req.fromApp],
        functionality: ref.functionality,
        data: shownRequest(input),
        payload: req.request,
        assessment,
        scopes,
        options,
        asker: { read: req.read, carried: req.carried },
        view: collaborationView(input, options, assessment),
      },
    },
    query.context.policy.consent.timeoutSeconds,
    { from: req.fromApp },
  );
  return { ok: true, state: "pending", consentId: consent.id };
}

/**
 * Where a collaboration stands: the answer to its latest consent. Once the user allowed one, the
 * next the chosen target needs is asked (endorse, then irreversible); once none is left, the hub
 * relays the request and returns the checked answer.
 */
export async function collaborationOutcome(
  c: CollaborationContext,
  consentId: string,
): Promise<CollaborationReply> {
  const asked = c.consents.get(consentId);
  const root = asked?.relay ? c.consents.get(asked.relay.consent) : asked;
  if (root?.kind !== "collaboration") return failure("dropped", "unknown consent");
  const rootState = await standing(c, root);
  if (rootState !== "allowed") return rootState;
  const chosen = root.choice ?? root.options?.[0]?.tool;
  const query = safeLoad(c, root.queryId);
  const target =
    query &&
    Object.values(query.context.snapshot.targets)
      .flat()
      .find((t) => targetId(t) === chosen);
  if (!query || !target || !root.asker) return failure("failed", "no app serves this functionality");
  const input = relayInput(query, root.functionality, {
    fromApp: root.from?.[0] ?? "",
    request: root.payload,
    ...root.asker,
  });
  const given = new Set<"endorse" | "irreversible">();
  for (;;) {
    const next = relayNext(input, target, given);
    if (next.next === "refused") {
      c.audit("collaboration_refused", { consentId: root.id, tool: targetId(target), reasons: next.refused });
      return failure("denied", `the policy refuses this request: ${next.refused[0]}`);
    }
    if (next.next === "relay") return relay(c, query, root, target, next.carries);
    const subject = `relay:${root.id}:${next.kind}`;
    const earlier = c.consents.forSubject(root.queryId, subject);
    if (!earlier) {
      const consent = c.path.ask(
        root.queryId,
        {
          kind: next.kind,
          stepKey: root.stepId,
          subject,
          grantSubject: null,
          request: {
            from: [input.asker.app],
            to: target.app,
            functionality: targetId(target),
            data: root.data,
            payload: root.payload,
            assessment: next.assessment,
            scopes: next.scopes,
            relay: { consent: root.id },
            view: relayView(input, target, next.kind, next.assessment),
          },
        },
        query.context.policy.consent.timeoutSeconds,
        { from: input.asker.app },
      );
      return { ok: true, state: "pending", consentId: consent.id };
    }
    const state = await standing(c, earlier);
    if (state !== "allowed") return state;
    given.add(next.kind);
  }
}

/**
 * A consent's answer as the asking spoke sees it: allowed, still pending, or why not. One past its
 * time is expired here through the consent path, as the alarm would: whichever comes first settles
 * and audits it, the other finds it settled.
 */
async function standing(c: CollaborationContext, consent: Consent): Promise<"allowed" | CollaborationReply> {
  if (consent.status === "pending") {
    if (Date.parse(consent.expiresAt) > Date.now())
      return { ok: true, state: "pending", consentId: consent.id };
    await c.path.settle(consent, { type: "expired" });
    return failure("expired", "nobody answered in time");
  }
  if (consent.status !== "allowed") return failure(consent.status, `the user ${consent.status} it`);
  return "allowed";
}

function relayInput(
  query: LoadedQuery,
  functionality: string,
  req: Pick<CollaborationRequest, "fromApp" | "request" | "read" | "carried">,
): RelayInput {
  return {
    policy: query.context.policy,
    lattices: query.lattices,
    snapshot: query.context.snapshot,
    plan: query.plan,
    ifc: query.context.defences.ifc,
    functionality,
    asker: { app: req.fromApp, read: req.read, carried: req.carried },
    request: req.request,
  };
}

async function relay(
  c: CollaborationContext,
  query: LoadedQuery,
  consent: Consent,
  target: Target,
  carries: string,
): Promise<CollaborationReply> {
  // One answer, one relay: the journal marks it before the request leaves.
  const mark = `collaboration:${consent.id}`;
  if (c.store.journal(consent.queryId).has(mark))
    return failure("failed", "this request was already relayed");
  c.store.journalStarted(consent.queryId, mark, "collaboration", {});
  const tool = targetId(target);
  const { policy, defences, snapshot } = query.context;
  // Through the port a plan step's call takes: the entry's schemas, the tenant's limits, the agent
  // settings; the version the query was verified against.
  const call = appCaller({
    env: c.env,
    session: c.session,
    queryId: consent.queryId,
    policy,
    defences,
    store: c.store,
  });
  const outcome = await call(relayCall(snapshot, target, consent.id, consent.payload, carries));
  if (outcome.ok || outcome.at !== "request") {
    const ok = outcome.ok || outcome.at === "response";
    c.store.emit(consent.queryId, "collaboration_relayed", { consentId: consent.id, tool, ok });
  }
  if (outcome.ok) {
    const confidentiality = relayedLevel(query.lattices, target, outcome);
    return { ok: true, state: "answered", value: outcome.value, confidentiality };
  }
  const problems = (outcome.problems ?? []).slice(0, 5);
  switch (outcome.at) {
    case "request":
      c.audit("collaboration_refused", { consentId: consent.id, tool, problems });
      return failure("failed", `the request does not match ${target.tool}: ${problems[0]}`);
    case "app":
      c.audit("collaboration_failed", { consentId: consent.id, tool, code: outcome.code });
      return { ...failure("failed", outcome.message), attempted: true };
    case "response":
      c.audit("collaboration_failed", { consentId: consent.id, tool, problems });
      return {
        ...failure("failed", `${target.app}'s answer does not match ${target.tool}`),
        attempted: true,
      };
  }
}

/** A query that cannot be loaded relays nothing; the failure is logged, not swallowed. */
function safeLoad(c: CollaborationContext, queryId: string): LoadedQuery | null {
  try {
    return c.load(queryId);
  } catch (error) {
    c.audit("collaboration_failed", {
      queryId,
      reason: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}
