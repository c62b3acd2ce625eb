import type { AuditType } from "../../audit-types.ts";
import type { ArtifactMetadata } from "../../contracts.ts";
import { StoredStateError } from "../../decode.ts";
import { complete, DEFAULT_MODEL_LIMITS, ModelError } from "../../llm/index.ts";
import type { Policy } from "../../policy/index.ts";
import {
  type Advance,
  type ArtifactDraft,
  advanceQuery,
  type ConsentAsk,
  defencesOf,
  type LoadedQuery,
  loadQuery,
  type Planned,
  planCalls,
  plannedQuery,
  planQuery,
  type QueryError,
  queryError,
  StepFailure,
  shownError,
  storedContext,
} from "../../runtime/index.ts";
import { bySize } from "../batch.ts";
import { sha256Hex } from "../crypto.ts";
import { artifactsStub, tenantStub } from "../stubs.ts";
import type { ConsentStore } from "./consents.ts";
import { planningContextOf, type TenantContext } from "./planning-views.ts";
import { queryPorts } from "./ports.ts";
import type { HubStore, QueryRecord, Session } from "./store.ts";

/** What a planning reads: the tenant's context, and the user's artifact metadata. */
type PlanningContext = [TenantContext, ArtifactMetadata[]];

/** How long a context fetched at admission stays the one a query plans with (else it is asked again). */
const ADMITTED_FOR_MS = 1_000;

/**
 * A query's life in the hub: it plans with the runtime's `planQuery`, advances with `advanceQuery`,
 * and writes what they decide (a plan, a consent to ask, artifacts, the end). The HubDO schedules;
 * this holds no state but the cache of loaded (re-verified) queries.
 */
/** How long one invocation runs a query's steps back to back before yielding to other queries. */
export const RUN_BUDGET_MS = 250;

export class QueryLifecycle {
  private readonly env: Env;
  private readonly store: HubStore;
  private readonly consents: ConsentStore;
  private readonly audit: (type: AuditType, detail: Record<string, unknown>) => void;
  /** Loaded (re-verified) queries of this instance, keyed by query id with the stored text they came from. */
  private readonly loaded = new Map<string, { from: string; query: LoadedQuery }>();

  constructor(input: {
    env: Env;
    store: HubStore;
    consents: ConsentStore;
    audit(type: AuditType, detail: Record<string, unknown>): void;
  }) {
    this.env = input.env;
    this.store = input.store;
    this.consents = input.consents;
    this.audit = input.audit;
  }

  /** One advance of one query: planning, or the plan's next durable step; any failure ends it cleanly. */
  async step(query: QueryRecord, session: Session): Promise<void> {
    // Asked before this advance writes anything: a Durable Object holds each message it sends until
    // the writes before it commit, so asked after the touch below, it would wait on that commit.
    const context = query.status === "planning" ? this.planningContext(query.id, session) : null;
    context?.catch(() => {}); // a failure is met where it is awaited
    this.store.update(query.id, {}); // touched: the next alarm serves the query that waited longest
    if (context) this.store.emit(query.id, "planning", {});
    try {
      if (context) {
        this.recordPlan(query, await this.plan(query, session, await context));
        // A verified plan starts at once, in this invocation: no alarm hop between planning and step 1.
        const planned = this.store.query(query.id);
        if (planned?.status === "running" && query.options.stepping !== "manual")
          await this.execute(planned, session);
      } else if (query.status === "running") await this.execute(query, session);
    } catch (error) {
      this.fail(query.id, session, unexpected(error));
    }
  }

  /**
   * The planner's context: from the tenant its policy, catalog and apps with today's tokens left and
   * the planner's model resolved, and the user's artifacts. Taken as the query was admitted when
   * that was just now (ADMITTED_FOR_MS), else asked for in two concurrent calls.
   */
  private async planningContext(queryId: string, session: Session): Promise<PlanningContext> {
    const early = this.early.get(queryId);
    this.early.delete(queryId);
    if (early && Date.now() - early.at <= ADMITTED_FOR_MS) return [early.tenant, await early.artifacts];
    return Promise.all([
      planningContextOf(tenantStub(this.env, session.tenantId), session.tenantId),
      this.artifactsOf(session),
    ]);
  }

  /** The user's newest artifact metadata a planner is shown (none in a private session). */
  artifactsOf(session: Session): Promise<ArtifactMetadata[]> {
    if (session.private) return Promise.resolve([]);
    return artifactsStub(this.env, session.tenantId, session.userId).listMetadata(100);
  }

  /** Planning context fetched as a query was admitted (startQuery), for its first advance. */
  admitted(queryId: string, context: { tenant: TenantContext; artifacts: Promise<ArtifactMetadata[]> }) {
    const now = Date.now();
    for (const [id, held] of this.early) if (now - held.at > ADMITTED_FOR_MS) this.early.delete(id);
    this.early.set(queryId, { ...context, at: now });
  }

  private readonly early = new Map<
    string,
    { tenant: TenantContext; artifacts: Promise<ArtifactMetadata[]>; at: number }
  >();

  private async plan(
    query: QueryRecord,
    session: Session,
    [{ policy, catalog, apps, planner: resolved }, artifacts]: PlanningContext,
  ): Promise<Planned> {
    const tenant = tenantStub(this.env, session.tenantId);
    // Retention: each new query first forgets the session's finished ones past the tenant's limit.
    this.store.prune(policy.retention.queryDays);
    if (!resolved.ok) return { state: "invalid", error: { code: resolved.code, message: resolved.message } };
    const { model } = resolved;
    const limits = { ...DEFAULT_MODEL_LIMITS, timeoutMs: policy.limits.modelTimeoutMs };
    return planQuery({
      query: query.text,
      earlierQueries: this.store.earlierTexts(query.seq),
      catalog,
      apps,
      artifacts,
      policy,
      roles: session.roles.length ? session.roles : policy.defaultRoles,
      defences: defencesOf(query.options),
      model: async (messages, schemas) => {
        const answer = await complete(
          model,
          {
            role: "planner",
            messages,
            schema: { name: "plan", schema: schemas.plan, strict: schemas.strict },
          },
          limits,
          { ai: this.env.AI },
        );
        const tokens = answer.usage.inputTokens + answer.usage.outputTokens;
        // Exact: every planner call, retries included. Not awaited: the tenant counts it as it
        // arrives, and the plan need not wait for the reply (a failure is logged).
        tenant
          .recordTokens(tokens)
          .catch((error: unknown) => console.error("hub: a planner call's tokens were not counted", error));
        return { text: answer.text, tokens, form: answer.form ?? "plain", finish: answer.finish ?? "stop" };
      },
    });
  }

  private recordPlan(query: QueryRecord, planned: Planned): void {
    if (planned.state === "invalid") {
      this.store.update(query.id, { status: "failed", error: shownError(planned.error, new Set()) });
      const errors = Array.isArray(planned.error.details) ? planned.error.details.slice(0, 20) : [];
      this.audit("plan_invalid", { queryId: query.id, errors });
      this.store.emit(query.id, "query_finished", { status: "failed" });
      return;
    }
    const { violations, redactions } = planned.verdict;
    const stored = {
      plan: JSON.stringify(planned.plan),
      context: storedContext(planned.context),
      verdict: JSON.stringify({ violations, redactions }),
    };
    if (planned.state === "rejected") {
      this.store.update(query.id, {
        status: "rejected",
        ...stored,
        ...(planned.error && { error: shownError(planned.error, new Set()) }),
      });
      this.audit("plan_rejected", { queryId: query.id, violations, attempts: planned.attempts });
      this.store.emit(query.id, "query_finished", { status: "rejected" });
      return;
    }
    if (redactions.length)
      this.audit("display_redacted", { queryId: query.id, items: redactions.map((r) => r.path) });
    this.store.update(query.id, { status: "running", ...stored });
    // What its first advance runs: the plan as verified now, not read back and verified again.
    this.loaded.set(query.id, {
      from: `${stored.plan}\u0000${stored.context}`,
      query: plannedQuery(query, planned.context, planned.plan, planned.verdict),
    });
    // The planner's token use shows in the trace (a live model bills it; scripted ones estimate).
    this.store.emit(query.id, "planned", {
      attempts: planned.attempts,
      violations: violations.length,
      tokens: planned.tokens,
    });
  }

  /**
   * Runs the query's steps back to back in this one invocation, in one pass of the interpreter (no
   * replay between steps), until it waits for the user, ends, or has run for RUN_BUDGET_MS; a run
   * cut short by the budget is continued by the next alarm. Each effect is journaled before the
   * next call goes out, so an eviction anywhere resumes exactly as between alarms. A query stepped
   * by hand (`stepping: "manual"`, the tests' eviction points) makes one call per advance.
   */
  private async execute(query: QueryRecord, session: Session): Promise<void> {
    const manual = query.options.stepping === "manual";
    const loaded = this.load(query);
    const { policy, defences } = loaded.context;
    const advance = await advanceQuery({
      queryId: query.id,
      query: loaded,
      journal: this.store.journal(query.id),
      ports: queryPorts({
        env: this.env,
        session,
        queryId: query.id,
        policy,
        defences,
        store: this.store,
        consents: this.consents,
        audit: (type, detail) => this.audit(type, detail),
      }),
      ...(!manual && { budget: Number.MAX_SAFE_INTEGER, deadline: Date.now() + RUN_BUDGET_MS }),
    });
    await this.apply(query, session, policy, advance);
  }

  /** Writes what the runtime decided. */
  private async apply(query: QueryRecord, session: Session, policy: Policy, advance: Advance): Promise<void> {
    switch (advance.next) {
      case "continue":
        return;
      case "wait":
        if (advance.ask) this.ask(query.id, policy, advance.ask);
        return;
      case "failed":
        await this.keep(query, session, policy, advance.artifacts);
        return this.fail(query.id, session, advance.error);
      case "done": {
        await this.keep(query, session, policy, advance.artifacts);
        this.ended(query.id, session);
        this.store.update(query.id, { status: "completed" });
        this.store.emit(query.id, "query_finished", { status: "completed" });
      }
    }
  }

  /** Stores what a query leaves in the user's artifacts (a private session keeps nothing). */
  private async keep(
    query: QueryRecord,
    session: Session,
    policy: Policy,
    drafts: ArtifactDraft[],
  ): Promise<void> {
    if (session.private) return;
    if (!drafts.length) return;
    const artifacts = await Promise.all(
      drafts.map(async (draft) => ({
        ...draft,
        id: `art_${(await sha256Hex(`${query.id}:${draft.name}`)).slice(0, 24)}`,
        query: query.text,
        sessionId: session.id,
        queryId: query.id,
        plannedIn: policy.planning.mode,
      })),
    );
    // Batched by size: a query's artifacts can together exceed what one RPC message may carry.
    const stub = artifactsStub(this.env, session.tenantId, session.userId);
    for (const batch of bySize(artifacts, ARTIFACT_BATCH_CHARS)) await stub.putMany(batch);
  }

  /** The stored query as the runtime's verified types; reused while its stored text is unchanged. */
  load(query: QueryRecord): LoadedQuery {
    const from = `${query.plan}\u0000${query.context}`;
    const cached = this.loaded.get(query.id);
    if (cached?.from === from) return cached.query;
    const loaded = loadQuery(query);
    this.loaded.set(query.id, { from, query: loaded });
    return loaded;
  }

  private ask(queryId: string, policy: Policy, ask: ConsentAsk): void {
    const { tool, ...request } = ask;
    const consent = this.consents.ask(queryId, request, policy.consent.timeoutSeconds);
    this.store.update(queryId, { status: "awaiting_consent" });
    this.store.emit(queryId, "consent_requested", {
      consentId: consent.id,
      kind: ask.kind,
      tool,
      key: ask.stepKey,
    });
    this.audit("consent_asked", {
      queryId,
      consentId: consent.id,
      kind: ask.kind,
      tool,
      assessment: ask.request.assessment,
    });
  }

  /**
   * However a query ends (done, failed, its consent expired): a private session keeps no value of
   * it past this point, in the journal or in its consents (shown data, a spoke's relayed request).
   * Only what was displayed remains.
   */
  ended(queryId: string, session: Session): void {
    this.loaded.delete(queryId);
    if (!session.private) return;
    this.store.forgetValues(queryId);
    this.consents.forgetValues(queryId);
  }

  /**
   * Ends a query as failed, for a step's failure and a consent's expiry alike. The error leaves
   * through the display boundary: stored, shown and audited as its code's words and facts.
   */
  fail(queryId: string, session: Session, error: QueryError): void {
    const row = this.store.query(queryId);
    const names = row?.plan ? planCalls(JSON.parse(row.plan), row.context) : new Set<string>();
    const shown = shownError(error, names, row?.options.boundary !== "off");
    this.ended(queryId, session);
    this.store.update(queryId, { status: "failed", error: shown });
    this.audit("query_failed", { queryId, ...shown });
    this.store.emit(queryId, "query_finished", { status: "failed", code: shown.code });
  }
}

/** Under the 32 MiB an RPC message may carry, with room for the metadata (JSON characters). */
const ARTIFACT_BATCH_CHARS = 8 * 1024 * 1024;

/** Any coded failure (runtime, model, stored state) ends the query as it says; only an unknown error is a bug. */
function unexpected(error: unknown): QueryError {
  if (error instanceof StepFailure || error instanceof ModelError || error instanceof StoredStateError) {
    return queryError(error);
  }
  console.error("query failed unexpectedly", error);
  return { code: "internal_error", message: "the query failed unexpectedly" };
}
