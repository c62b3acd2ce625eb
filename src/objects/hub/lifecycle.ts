import type { AuditType } from "../../audit-types.ts";
import type { ArtifactMetadata } from "../../contracts.ts";
import { StoredStateError } from "../../decode.ts";
import { complete, DEFAULT_MODEL_LIMITS, ModelError } from "../../llm/index.ts";
import type { Policy } from "../../policy/index.ts";
import {
  type ArtifactDraft,
  advanceQuery,
  defencesOf,
  type LoadedQuery,
  loadQuery,
  next,
  type Planned,
  planQuery,
  type QueryError,
  type QueryEvent,
  queryError,
  StepFailure,
} from "../../runtime/index.ts";
import { bySize } from "../batch.ts";
import { sha256Hex } from "../crypto.ts";
import { artifactsStub } from "../stubs.ts";
import { planningContextOf, recordTokens, type TenantContext } from "../tenant-replica/index.ts";
import { traceHex } from "../tracing.ts";
import type { ConsentPath } from "./consent-path.ts";
import type { ConsentStore } from "./consents.ts";
import { queryPorts } from "./ports.ts";
import type { CallProgress } from "./progress.ts";
import type { HubStore, QueryRecord, Session } from "./store.ts";
import type { HubTraces } from "./traces.ts";

/** What a planning reads: the tenant's context, and the user's artifact metadata. */
type PlanningContext = [TenantContext, ArtifactMetadata[]];

/** How long a context fetched at admission stays the one a query plans with (else it is asked again). */
const ADMITTED_FOR_MS = 1_000;

/**
 * A query's life in the hub: it plans with the runtime's `planQuery`, advances with `advanceQuery`,
 * and carries out what the query machine (`next`) makes of their outcomes: the transition written in
 * one store call, its audit rows and its effects (artifacts kept, a consent asked). The HubDO
 * schedules; this holds no state but the cache of loaded (re-verified) queries.
 */
/** How long one invocation runs a query's steps back to back before yielding to other queries. */
export const RUN_BUDGET_MS = 250;

export class QueryLifecycle {
  private readonly env: Env;
  private readonly store: HubStore;
  private readonly consents: ConsentStore;
  private readonly path: ConsentPath;
  private readonly audit: (type: AuditType, detail: Record<string, unknown>) => void;
  private readonly progress: CallProgress;
  private readonly traces: HubTraces;
  /** Loaded (re-verified) queries of this instance, keyed by query id with the stored text they came from. */
  private readonly loaded = new Map<string, { from: string; query: LoadedQuery }>();

  constructor(input: {
    env: Env;
    store: HubStore;
    consents: ConsentStore;
    /** Where a plan step's consent is asked (consent-path.ts). */
    path: ConsentPath;
    progress: CallProgress;
    traces: HubTraces;
    audit(type: AuditType, detail: Record<string, unknown>): void;
  }) {
    this.env = input.env;
    this.progress = input.progress;
    this.traces = input.traces;
    this.store = input.store;
    this.consents = input.consents;
    this.path = input.path;
    this.audit = input.audit;
  }

  /** One advance of one query: planning, or the plan's next durable step; any failure ends it cleanly. */
  async step(query: QueryRecord, session: Session): Promise<void> {
    // Asked before this advance writes anything: a Durable Object holds each message it sends until
    // the writes before it commit, so asked after the touch below, it would wait on that commit.
    const context = query.status === "planning" ? this.planningContext(query.id, session) : null;
    context?.catch(() => {}); // a failure is met where it is awaited
    // Touched: the next alarm serves the query that waited longest.
    const touched = await this.transition(query, session, { type: "advancing" });
    try {
      if (context) {
        const planned = await this.tracedPlan(touched, session, context);
        const row = await this.transition(touched, session, { type: "planned", planned });
        // A verified plan starts at once, in this invocation: no alarm hop between planning and step 1.
        if (row.status === "running" && row.options.stepping !== "manual") await this.execute(row, session);
      } else if (touched.status === "running") await this.execute(touched, session);
    } catch (error) {
      const row = this.store.query(query.id);
      if (row) await this.transition(row, session, { type: "failed", error: unexpected(error) });
    }
  }

  /**
   * Brings an event to the query machine (runtime/query-machine.ts) and carries out what it decides:
   * the transition written in one store call, then its audit rows, the loaded copy dropped, and its
   * effects performed (`policy`: the query's, for effects that read it). Returns the row as written.
   */
  async transition(
    query: QueryRecord,
    session: Session,
    event: QueryEvent,
    policy: Policy | null = null,
  ): Promise<QueryRecord> {
    // Decided on the row as it is now: an answer or an expiry may have moved the query while its
    // caller awaited another object (a grant, a model), and a stale status would be overwritten.
    const current = this.store.query(query.id) ?? query;
    const t = next({ ...current, privateSession: session.private }, event);
    const row = this.store.apply(current, t);
    for (const { type, detail } of t.audit) this.audit(type, detail);
    if (t.uncache) this.loaded.delete(query.id);
    let after = t.after;
    for (const effect of t.effects) {
      if (effect.kind === "hold") {
        // What its first advance runs: the plan as verified now, not read back and verified again.
        this.loaded.set(query.id, { from: `${row.plan}\u0000${row.context}`, query: effect.query });
      } else if (effect.kind === "keep") await this.keep(row, session, policyOf(policy), effect.artifacts);
      else {
        const { tool, ...request } = effect.ask;
        const timeout = policyOf(policy).consent.timeoutSeconds;
        const consent = this.path.ask(query.id, request, timeout, { tool });
        after = { type: "asked", consentId: consent.id, ask: effect.ask };
      }
    }
    return after ? this.transition(row, session, after, policy) : row;
  }

  /** A consent's event (consent-path.ts) brought to its query's machine; false when the query or session is gone. */
  async bring(queryId: string, event: QueryEvent): Promise<boolean> {
    const query = this.store.query(queryId);
    const session = this.store.session();
    if (!query || !session) return false;
    await this.transition(query, session, event);
    return true;
  }

  /**
   * The planner's context: from the isolate's replica of the tenant its policy, catalog and apps with
   * today's tokens left and the planner's model, and the user's artifacts, asked for as the query was
   * admitted when that was just now (ADMITTED_FOR_MS), else now.
   */
  private async planningContext(queryId: string, session: Session): Promise<PlanningContext> {
    const early = this.early.get(queryId);
    this.early.delete(queryId);
    const artifacts =
      early && Date.now() - early.at <= ADMITTED_FOR_MS ? early.artifacts : this.artifactsOf(session);
    return Promise.all([planningContextOf(this.env, session.tenantId), artifacts]);
  }

  /** The user's newest artifact metadata a planner is shown (none in a private session). */
  artifactsOf(session: Session): Promise<ArtifactMetadata[]> {
    if (session.private) return Promise.resolve([]);
    return artifactsStub(this.env, session.tenantId, session.userId).listMetadata(100);
  }

  /** The user's artifact metadata asked for as a query was admitted (startQuery), for its first advance. */
  admitted(queryId: string, artifacts: Promise<ArtifactMetadata[]>) {
    const now = Date.now();
    for (const [id, held] of this.early) if (now - held.at > ADMITTED_FOR_MS) this.early.delete(id);
    this.early.set(queryId, { artifacts, at: now });
  }

  private readonly early = new Map<string, { artifacts: Promise<ArtifactMetadata[]>; at: number }>();

  /**
   * Planning as its spans say it: `lattice.plan` from the context asked to the verdict, and under it
   * `lattice.verify`, from the planner's last answer to the verdict (planQuery verifies each answer
   * as it comes; the last one's check is the one that decided).
   */
  private async tracedPlan(
    query: QueryRecord,
    session: Session,
    context: Promise<PlanningContext>,
  ): Promise<Planned> {
    const { tracer } = this.traces;
    const parent = this.traces.context(query.id);
    if (!parent) return this.plan(query, session, await context);
    const span = tracer.start("lattice.plan", parent, { "lattice.query_id": query.id });
    let answered = 0;
    let models = 0;
    try {
      const planned = await this.plan(query, session, await context, () => {
        answered = Date.now();
        models++;
      });
      const verdict = planned.state === "invalid" ? null : planned.verdict;
      const attributes = {
        "lattice.query_id": query.id,
        "lattice.plan.state": planned.state,
        "lattice.plan.model_calls": models,
        ...(planned.state !== "invalid" && {
          "lattice.plan.attempts": planned.attempts,
          "lattice.plan.tokens": planned.tokens,
          "lattice.plan.steps": planned.plan.steps.length,
        }),
        "lattice.verdict": verdict ? (verdict.ok ? "accepted" : "rejected") : "invalid",
        "lattice.verify.violations": verdict?.violations.length ?? 0,
        // The rule of the first violation (what a reader looks for first), never its values.
        "lattice.rule": verdict?.violations[0]?.rule,
        "lattice.verify.redactions": verdict?.redactions.length ?? 0,
      };
      const outcome = planned.state === "invalid" ? planned.error.code : (planned.error?.code ?? "ok");
      if (answered) {
        tracer.record({
          name: "lattice.verify",
          context: { ...span.context, spanId: traceHex(8) },
          parentSpanId: span.context.spanId,
          startMs: answered,
          endMs: Date.now(),
          attributes,
          outcome,
        });
      }
      span.end(outcome, attributes);
      return planned;
    } catch (error) {
      span.end(error instanceof ModelError ? error.code : "failed");
      throw error;
    }
  }

  private async plan(
    query: QueryRecord,
    session: Session,
    [{ policy, catalog, apps, planner: resolved }, artifacts]: PlanningContext,
    answered: () => void = () => {},
  ): Promise<Planned> {
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
        answered();
        const tokens = answer.usage.inputTokens + answer.usage.outputTokens;
        // Every planner call, retries included, counted in this isolate's batch (tenant-replica/).
        recordTokens(this.env, session.tenantId, tokens);
        return { text: answer.text, tokens, form: answer.form ?? "plain", finish: answer.finish ?? "stop" };
      },
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
        progress: this.progress,
        consents: this.consents,
        traces: this.traces,
        audit: (type, detail) => this.audit(type, detail),
      }),
      ...(!manual && { budget: Number.MAX_SAFE_INTEGER, deadline: Date.now() + RUN_BUDGET_MS }),
    });
    await this.transition(query, session, { type: "stepped", advance }, policy);
  }

  /** Stores what a query leaves in the user's artifacts (the machine asks none of a private session). */
  private async keep(
    query: QueryRecord,
    session: Session,
    policy: Policy,
    drafts: ArtifactDraft[],
  ): Promise<void> {
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
    const parent = this.traces.context(query.id);
    for (const batch of bySize(artifacts, ARTIFACT_BATCH_CHARS)) {
      const span = this.traces.tracer.start("lattice.artifact.write", parent, {
        "lattice.query_id": query.id,
        "lattice.artifact.count": batch.length,
        // The labels the artifacts keep (their names and values are the user's).
        "lattice.label.confidentiality": [...new Set(batch.map((a) => a.label.confidentiality))].join(","),
        "lattice.label.integrity": [...new Set(batch.map((a) => a.label.integrity))].join(","),
      });
      try {
        await stub.putMany(batch);
        span.end();
      } catch (error) {
        span.end("failed");
        throw error;
      }
    }
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
}

/** Under the 32 MiB an RPC message may carry, with room for the metadata (JSON characters). */
const ARTIFACT_BATCH_CHARS = 8 * 1024 * 1024;

/** The query's policy, for an effect that reads it: only a run of its steps asks such effects. */
function policyOf(policy: Policy | null): Policy {
  if (!policy) throw new Error("a query effect needs the query's policy");
  return policy;
}

/** Any coded failure (runtime, model, stored state) ends the query as it says; only an unknown error is a bug. */
function unexpected(error: unknown): QueryError {
  if (error instanceof StepFailure || error instanceof ModelError || error instanceof StoredStateError) {
    return queryError(error);
  }
  console.error("query failed unexpectedly", error);
  return { code: "internal_error", message: "the query failed unexpectedly" };
}
