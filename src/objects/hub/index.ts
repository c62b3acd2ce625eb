import { DurableObject } from "cloudflare:workers";
import type { CollaborationReply, CollaborationRequest, Discovery } from "../../contracts.ts";
import { StoredStateError } from "../../decode.ts";
import { complete, DEFAULT_MODEL_LIMITS, ModelError, modelFor } from "../../llm/index.ts";
import type { Policy } from "../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import {
  type Advance,
  type AnswerCheck,
  type ArtifactDraft,
  advanceQuery,
  answerRules,
  type Consent,
  type ConsentAnswer,
  type ConsentAsk,
  type ConsentStatus,
  defencesOf,
  expiryStopsQuery,
  type HubEvent,
  type LoadedQuery,
  loadQuery,
  type Planned,
  planQuery,
  type QueryError,
  type QueryOptions,
  QueryOptionsSchema,
  queryError,
  StepFailure,
  storedContext,
} from "../../runtime/index.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { artifactsStub, tenantStub } from "../stubs.ts";
import { collaborationOutcome, discover, requestCollaboration } from "./collaboration.ts";
import { CONSENT_MIGRATIONS, ConsentStore } from "./consents.ts";
import { EPHEMERAL_MIGRATIONS, ephemeralId, type FunctionalityRef, resolveEphemeral } from "./ephemeral.ts";
import { queryPorts } from "./ports.ts";
import { HubStore, type QueryRecord, type Session, STORE_MIGRATIONS } from "./store.ts";
import { type QueryView, viewQuery } from "./view.ts";

const MIGRATIONS = { ephemeral: EPHEMERAL_MIGRATIONS, store: STORE_MIGRATIONS, consents: CONSENT_MIGRATIONS };
/** The order the modules' lists were spliced in before migrations were keyed (see sql.ts). */
const LEGACY_LAYOUT = [
  ["ephemeral", 1],
  ["store", 5],
  ["consents", 3],
] as const;

export type AnswerResult = Ok<{ consent: Consent }> | Exclude<AnswerCheck, { ok: true }>;
export type StartResult =
  | Ok<{ query: QueryView }>
  | Failure<"idempotency_conflict" | "no_session" | "invalid_options">;

/**
 * One per (tenant, session), recording its user: the deterministic hub. It stores, schedules and
 * supplies effects; the query runtime (src/runtime) decides. Queries advance in alarms, one effect
 * per alarm, so the object may be evicted between any two steps and resumes from its SQLite state.
 */
export class HubDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private readonly store: HubStore;
  private readonly consentStore: ConsentStore;
  /** Identifies this in-memory instance: a new one after every eviction or restart. */
  private readonly instance = randomId("inst", 6);
  /** Loaded (re-verified) queries of this instance, keyed by query id with the stored text they came from. */
  private readonly loaded = new Map<string, { from: string; query: LoadedQuery }>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
    this.store = new HubStore(this.sql);
    this.consentStore = new ConsentStore(this.sql);
    // After a restart, make sure unfinished queries have an alarm to resume them.
    ctx.blockConcurrencyWhile(async () => {
      if (this.autoQueries().length && (await ctx.storage.getAlarm()) === null) {
        await ctx.storage.setAlarm(Date.now());
      }
    });
  }

  // --- the frontend's surface (through the Worker's routes) ---

  open(session: Omit<Session, "createdAt" | "roles"> & { roles?: string[] }): Session {
    return this.store.openSession(session);
  }

  session(): Session | null {
    return this.store.session();
  }

  /** Records a query and schedules its planning. An Idempotency-Key seen before returns that query. */
  async startQuery(
    text: string,
    idempotencyKey: string | null,
    given: QueryOptions = {},
  ): Promise<StartResult> {
    if (!this.store.session()) return failure("no_session", "no such session");
    // Controls arrive over RPC only; a malformed one is refused here, so every stored row reads back.
    const parsed = QueryOptionsSchema.safeParse(given);
    if (!parsed.success) return failure("invalid_options", "unknown query options");
    const options = parsed.data;
    if (idempotencyKey) {
      const seen = this.store.queryByIdempotencyKey(idempotencyKey);
      if (seen) {
        return seen.text === text
          ? { ok: true, query: this.view(seen) }
          : failure("idempotency_conflict", "this Idempotency-Key was used for a different query");
      }
    }
    const query = this.store.insertQuery(randomId("q"), text, idempotencyKey, options);
    this.store.emit(query.id, "query_started", { text });
    if (options.stepping !== "manual") await this.ctx.storage.setAlarm(Date.now());
    return { ok: true, query: this.view(query) };
  }

  query(queryId: string): QueryView | null {
    const row = this.store.query(queryId);
    return row ? this.view(row) : null;
  }

  events(afterSeq: number, queryId?: string): HubEvent[] {
    return this.store.events(afterSeq, queryId);
  }

  consents(filter: { status?: ConsentStatus; queryId?: string } = {}): Consent[] {
    return this.consentStore.list(filter);
  }

  /** The user's answer, checked by the runtime's rules; errors are returned so the route maps each. */
  async answerConsent(consentId: string, answer: ConsentAnswer): Promise<AnswerResult> {
    const consent = this.consentStore.get(consentId);
    if (!consent) return failure("not_found", "no such consent");
    const query = this.store.query(consent.queryId);
    const session = this.store.session();
    const check = answerRules(
      consent,
      { queryStatus: query?.status ?? null, privateSession: session?.private ?? false, now: Date.now() },
      answer,
    );
    if (!check.ok) {
      if (check.code === "already_answered" && check.late) this.expire(consent);
      return check;
    }
    const permanent = this.consentStore.record(consent, check.settle);
    if (permanent && session)
      await artifactsStub(this.env, session.tenantId, session.userId).addGrant(permanent);
    const pending = this.consentStore.list({ status: "pending", queryId: consent.queryId });
    if (query?.status === "awaiting_consent" && !pending.length)
      this.store.update(query.id, { status: "running" });
    this.store.emit(consent.queryId, "consent_answered", {
      consentId,
      decision: answer.decision,
      scope: answer.scope,
    });
    this.audit("consent_answered", { queryId: consent.queryId, consentId, kind: consent.kind, ...answer });
    await this.schedule();
    return { ok: true, consent: this.consentStore.get(consentId)! };
  }

  // --- the alarm loop ---

  /**
   * Expires unanswered consents, advances the least recently touched active query by one step, and
   * reschedules: at once while work remains, else at the next consent's deadline.
   */
  override async alarm(): Promise<void> {
    for (const consent of this.consentStore.overdue(Date.now())) this.expire(consent);
    const next = this.autoQueries().sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))[0];
    if (next) await this.step(next);
    await this.schedule();
  }

  /** One step of one query, on demand: how tests drive a query started with `stepping: "manual"`. */
  async advance(queryId: string): Promise<QueryView | null> {
    const row = this.store.query(queryId);
    if (!row) return null;
    await this.step(row);
    return this.query(queryId);
  }

  instanceId(): string {
    return this.instance;
  }

  private async step(query: QueryRecord): Promise<void> {
    this.store.update(query.id, {}); // touched: the next alarm serves the query that waited longest
    const session = this.store.session();
    if (!session) return;
    try {
      if (query.status === "planning") this.recordPlan(query, await this.plan(query, session));
      else if (query.status === "running") await this.execute(query, session);
    } catch (error) {
      this.fail(query.id, session, unexpected(error));
    }
  }

  private async plan(query: QueryRecord, session: Session): Promise<Planned> {
    const tenant = tenantStub(this.env, session.tenantId);
    const { policy, catalog, apps } = await tenant.planningView();
    const artifacts = session.private
      ? []
      : await artifactsStub(this.env, session.tenantId, session.userId).listMetadata(100);
    this.store.emit(query.id, "planning", {});
    const model = modelFor("planner", policy.models, this.env);
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
      model: async (messages, schema) => {
        const answer = await complete(
          model,
          { role: "planner", messages, schema: { name: "plan", schema } },
          limits,
        );
        return { text: answer.text, tokens: answer.usage.inputTokens + answer.usage.outputTokens };
      },
    });
  }

  private recordPlan(query: QueryRecord, planned: Planned): void {
    if (planned.state === "invalid") {
      this.store.update(query.id, { status: "failed", error: planned.error });
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
        ...(planned.error && { error: planned.error }),
      });
      this.audit("plan_rejected", { queryId: query.id, violations, attempts: planned.attempts });
      this.store.emit(query.id, "query_finished", { status: "rejected" });
      return;
    }
    if (redactions.length)
      this.audit("display_redacted", { queryId: query.id, items: redactions.map((r) => r.path) });
    this.store.update(query.id, { status: "running", ...stored });
    // The planner's token use shows in the trace (a live model bills it; scripted ones estimate).
    this.store.emit(query.id, "planned", {
      attempts: planned.attempts,
      violations: violations.length,
      tokens: planned.tokens,
    });
  }

  private async execute(query: QueryRecord, session: Session): Promise<void> {
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
        consents: this.consentStore,
        audit: (type, detail) => this.audit(type, detail),
      }),
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
        if (session.private) this.store.forgetValues(query.id);
        this.loaded.delete(query.id);
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
    const artifacts = artifactsStub(this.env, session.tenantId, session.userId);
    for (const draft of drafts) {
      const id = `art_${(await sha256Hex(`${query.id}:${draft.name}`)).slice(0, 24)}`;
      await artifacts.put({
        ...draft,
        id,
        query: query.text,
        sessionId: session.id,
        queryId: query.id,
        plannedIn: policy.planning.mode,
      });
    }
  }

  /** The stored query as the runtime's verified types; reused while its stored text is unchanged. */
  private load(query: QueryRecord): LoadedQuery {
    const from = `${query.plan}\u0000${query.context}`;
    const cached = this.loaded.get(query.id);
    if (cached?.from === from) return cached.query;
    const loaded = loadQuery(query);
    this.loaded.set(query.id, { from, query: loaded });
    return loaded;
  }

  private ask(queryId: string, policy: Policy, ask: ConsentAsk): void {
    const { tool, ...request } = ask;
    const consent = this.consentStore.ask(queryId, request, policy.consent.timeoutSeconds);
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

  private fail(queryId: string, session: Session, error: QueryError): void {
    if (session.private) this.store.forgetValues(queryId);
    this.loaded.delete(queryId);
    this.store.update(queryId, { status: "failed", error });
    this.audit("query_failed", { queryId, code: error.code, message: error.message });
    this.store.emit(queryId, "query_finished", { status: "failed", code: error.code });
  }

  private expire(consent: Consent): void {
    this.consentStore.settle(consent.id, "expired", null, null);
    this.audit("consent_expired", { queryId: consent.queryId, consentId: consent.id, kind: consent.kind });
    if (!expiryStopsQuery(consent, this.store.query(consent.queryId)?.status ?? null)) return;
    const error = {
      code: "consent_expired",
      message: `nobody answered the ${consent.kind} consent in time`,
    } as const;
    this.store.update(consent.queryId, { status: "failed", error });
    this.store.emit(consent.queryId, "query_finished", { status: "failed", code: error.code });
  }

  private async schedule(): Promise<void> {
    const at = this.autoQueries().length ? Date.now() : this.consentStore.nextExpiry();
    if (at !== null) await this.ctx.storage.setAlarm(at);
  }

  /** Every hub audit event goes to the tenant's log with the session and user; it never blocks or fails. */
  private audit(type: string, detail: Record<string, unknown>): void {
    const session = this.store.session();
    if (!session) return;
    void tenantStub(this.env, session.tenantId)
      .audit(type, { sessionId: session.id, userId: session.userId, ...detail })
      .catch(() => {});
  }

  private autoQueries(): QueryRecord[] {
    return this.store.activeQueries().filter((q) => q.options.stepping !== "manual");
  }

  private view(row: QueryRecord): QueryView {
    return viewQuery(this.store, this.consentStore, row);
  }

  // --- collaboration between spokes (collaboration.ts): called by SpokeDOs, never from HTTP ---

  async discover(name: string): Promise<Discovery | null> {
    const session = this.store.session();
    return session ? discover(this.sql, tenantStub(this.env, session.tenantId), name) : null;
  }

  async requestCollaboration(request: CollaborationRequest): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? requestCollaboration(context, request) : failure("failed", "no session");
  }

  /** The asking spoke stopped waiting: the request is withdrawn, so a late answer relays nothing. */
  withdrawCollaboration(consentId: string): void {
    const consent = this.consentStore.get(consentId);
    if (consent?.kind === "collaboration") this.consentStore.settle(consentId, "expired", null, null);
  }

  async collaborationOutcome(consentId: string): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? collaborationOutcome(context, consentId) : failure("failed", "no session");
  }

  private collaborationContext() {
    const session = this.store.session();
    if (!session) return null;
    return {
      sql: this.sql,
      store: this.store,
      consents: this.consentStore,
      env: this.env,
      session,
      load: (queryId: string) => {
        const query = this.store.query(queryId);
        return query?.plan && query.context ? this.load(query) : null;
      },
      audit: (type: string, detail: Record<string, unknown>) => this.audit(type, detail),
    };
  }

  ephemeralId(ref: FunctionalityRef): string {
    return ephemeralId(this.sql, ref);
  }

  resolveEphemeral(fxId: string): FunctionalityRef | null {
    return resolveEphemeral(this.sql, fxId);
  }
}

/** Any coded failure (runtime, model, stored state) ends the query as it says; only an unknown error is a bug. */
function unexpected(error: unknown): QueryError {
  if (error instanceof StepFailure || error instanceof ModelError || error instanceof StoredStateError) {
    return queryError(error);
  }
  console.error("query failed unexpectedly", error);
  return { code: "internal_error", message: "the query failed unexpectedly" };
}
