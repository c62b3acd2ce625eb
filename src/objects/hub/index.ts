import { DurableObject } from "cloudflare:workers";
import type { AuditType } from "../../audit-types.ts";
import type { CollaborationReply, CollaborationRequest, Discovery } from "../../contracts.ts";
import { failure, type Ok } from "../../result.ts";
import {
  type AnswerCheck,
  type Answerer,
  type AppPicks,
  answerRules,
  type Consent,
  type ConsentAnswer,
  type ConsentStatus,
  type HubEvent,
  type QueryOptions,
  shownConsent,
} from "../../runtime/index.ts";
import { writeAudit } from "../audit-sink.ts";
import { hasSchema, migrate, type Sql, sqlTag } from "../sql.ts";
import { artifactsStub } from "../stubs.ts";
import { Tracer } from "../tracing.ts";
import { type AdmissionContext, type StartResult, startQuery, type TraceHeaders } from "./admission.ts";
import { collaborationOutcome, discover, requestCollaboration } from "./collaboration.ts";
import { ConsentPath } from "./consent-path.ts";
import { ConsentStore } from "./consents.ts";
import { QueryLifecycle } from "./lifecycle.ts";
import { HUB_LEGACY_LAYOUT, HUB_MIGRATIONS } from "./migrations.ts";
import { CallProgress, type ProgressReport } from "./progress.ts";
import { type Caller, HubStore, type QueryRecord, type Session } from "./store.ts";
import { EventStreams } from "./streams.ts";
import { HubTraces } from "./traces.ts";
import { type HubErased, type HubExport, HubUserData } from "./user-data.ts";
import { type QueryView, viewQuery } from "./view.ts";

export type { Answerer } from "../../runtime/index.ts";

const EXPIRED = { type: "expired" } as const;

/** The key of the hub's one test hook (`[STEP_QUERY]`), which a subclass calls and RPC cannot. */
export const STEP_QUERY: unique symbol = Symbol("hub.stepQuery");

export type AnswerResult = Ok<{ consent: Consent }> | Exclude<AnswerCheck, { ok: true }>;
export type { StartResult } from "./admission.ts";

/**
 * One per (tenant, session), recording its user: the deterministic hub. It stores, schedules and
 * supplies effects; the query runtime (src/runtime) decides. Queries advance in alarms, one effect
 * per alarm, so the object may be evicted between any two steps and resumes from its SQLite state.
 */
export class HubDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private readonly store: HubStore;
  private readonly consentStore: ConsentStore;
  /** Every consent's ask and settlement, audited once (consent-path.ts). */
  private readonly consentPath: ConsentPath;
  /** Open event streams, each pushed the events it matches as the store writes them. */
  private readonly streams = new EventStreams((after, queryId, limit) =>
    this.store.events(after, queryId, limit),
  );
  private readonly lifecycle: QueryLifecycle;
  private readonly progress: CallProgress;
  /** The spans of this hub's queries (traces.ts); a no-op unless LATTICE_OTLP_ENDPOINT is set. */
  private readonly traces: HubTraces;
  /**
   * Whether this hub was ever opened. Any call on an id constructs its object, so a hub creates its
   * tables only when opened: a request naming an unknown session id reads, writes nothing, and
   * leaves no object behind.
   */
  private opened: boolean;
  /** The session's part in its user's data rights (user-data.ts). */
  private readonly userData: HubUserData;
  /** What admitting a query needs of this hub (admission.ts). */
  private readonly admission: AdmissionContext;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    this.opened = hasSchema(ctx.storage);
    if (this.opened) migrate(ctx.storage, HUB_MIGRATIONS, HUB_LEGACY_LAYOUT);
    this.consentStore = new ConsentStore(this.sql);
    const tracer = new Tracer(env, { object: "hub" }, (p) => ctx.waitUntil(p));
    this.traces = new HubTraces(tracer, {
      query: (queryId) => this.store.query(queryId),
      consent: (consentId) => this.consentStore.get(consentId),
    });
    this.store = new HubStore(this.sql, {
      written: (event) => {
        this.streams.push(event);
        if (tracer.on) this.traces.event(event());
      },
      consents: this.consentStore,
      transaction: (work) => ctx.storage.transactionSync(work),
    });
    this.progress = new CallProgress(this.store);
    this.userData = new HubUserData({
      ctx,
      env,
      sql: this.sql,
      store: this.store,
      opened: () => this.opened,
      session: () => this.session(),
      view: (row) => this.view(row),
      serially: (work) => this.serially(work),
    });
    this.consentPath = new ConsentPath({
      consents: this.consentStore,
      store: this.store,
      audit: (type, detail) => this.audit(type, detail),
      query: (queryId, event) => this.lifecycle.bring(queryId, event),
    });
    this.lifecycle = new QueryLifecycle({
      env,
      store: this.store,
      consents: this.consentStore,
      path: this.consentPath,
      progress: this.progress,
      traces: this.traces,
      audit: (type, detail) => this.audit(type, detail),
    });
    this.admission = {
      ctx,
      env,
      store: this.store,
      traces: this.traces,
      lifecycle: this.lifecycle,
      userData: this.userData,
      session: () => this.session(),
      view: (row) => this.view(row),
      soon: () => this.soon(),
    };
    // After a restart, make sure unfinished queries have an alarm to resume them.
    ctx.blockConcurrencyWhile(async () => {
      if (this.opened && this.autoQueries().length && (await ctx.storage.getAlarm()) === null) {
        await ctx.storage.setAlarm(Date.now());
      }
    });
  }

  // --- the frontend's surface (through the Worker's routes) ---

  /**
   * Opens the session (an open one stays as it is). The first opening names the session in its
   * user's index (ArtifactsDO, #34), awaited so an export or erasure after it finds the session: one
   * call per session's life; a chat turn reopening its session pays nothing more.
   */
  async open(session: Omit<Session, "createdAt" | "roles"> & { roles?: string[] }): Promise<Session> {
    if (!this.opened) migrate(this.ctx.storage, HUB_MIGRATIONS, HUB_LEGACY_LAYOUT);
    this.opened = true;
    const existing = this.store.session();
    if (existing) {
      await this.userData.noteInIndex(existing);
      return existing;
    }
    await this.userData.noteInIndex(session);
    return this.store.openSession(session);
  }

  session(): Session | null {
    return this.opened ? this.store.session() : null;
  }

  /**
   * Records a query and schedules its planning. An Idempotency-Key seen before returns that query.
   * `caller`, when it acts for one user only (a user token), must be allowed the session (`mayUse`):
   * another user's session, or one opened with roles it lacks, is not there for it (so the route
   * needs no separate round trip to check).
   * `picks` are the apps the frontend picked (the request's `apps`), checked against the serving
   * apps as the query is admitted.
   * `trace` is the frontend's W3C `traceparent` and `tracestate` (a malformed one is ignored): the
   * query's trace continues it.
   */
  async startQuery(
    text: string,
    idempotencyKey: string | null,
    given: QueryOptions = {},
    caller: Caller | null = null,
    picks: AppPicks = {},
    trace: TraceHeaders = {},
  ): Promise<StartResult> {
    return startQuery(this.admission, text, idempotencyKey, given, caller, picks, trace);
  }

  query(queryId: string): QueryView | null {
    const row = this.opened ? this.store.query(queryId) : null;
    return row ? this.view(row) : null;
  }

  /**
   * A lease for one open event stream, or null at `max`: each open stream holds memory here, so
   * their number is bounded. Leases live in memory (an evicted hub forgets them, and ends their
   * streams); one never opened lapses after `ttlMs`.
   */
  openStream(max: number, ttlMs: number): string | null {
    return this.streams.lease(max, ttlMs);
  }

  closeStream(lease: string): void {
    this.streams.release(lease);
  }

  /**
   * The session's events as server-sent events, on a lease: those stored after `after`, then each
   * new one as it is written, for at most `maxMs`. A query's stream ends when it finishes or waits
   * for the user. Null when the lease lapsed and no place is free.
   */
  eventStream(
    lease: string,
    opts: { after: number; queryId?: string; max: number; maxMs: number },
  ): ReadableStream<Uint8Array> | null {
    return this.streams.open(lease, opts);
  }

  /**
   * The query a chat turn left open (waiting for consent, or still running), so the next turn reports
   * on it instead of starting another (the chat adapters have no other memory of turns).
   */
  async owedTurn(): Promise<string | null> {
    return (await this.ctx.storage.get<string>("chat:owed")) ?? null;
  }

  async oweTurn(queryId: string): Promise<void> {
    await this.ctx.storage.put("chat:owed", queryId);
  }

  /** Clears the marker only if it still names this query: a later turn's marker stays. */
  async settleTurn(queryId: string): Promise<void> {
    if ((await this.ctx.storage.get<string>("chat:owed")) === queryId)
      await this.ctx.storage.delete("chat:owed");
  }

  events(afterSeq: number, queryId?: string): HubEvent[] {
    return this.opened ? this.store.events(afterSeq, queryId) : [];
  }

  consents(filter: { status?: ConsentStatus; queryId?: string } = {}): Consent[] {
    return this.opened ? this.consentStore.list(filter).map(shownConsent) : [];
  }

  /** The user's answer, checked by the runtime's rules; errors are returned so the route maps each. */
  async answerConsent(consentId: string, answer: ConsentAnswer, by?: Answerer): Promise<AnswerResult> {
    const consent = this.opened ? this.consentStore.get(consentId) : null;
    if (!consent) return failure("not_found", "no such consent");
    const query = this.store.query(consent.queryId);
    const session = this.session();
    const check = answerRules(
      consent,
      { queryStatus: query?.status ?? null, privateSession: session?.private ?? false, now: Date.now() },
      answer,
    );
    if (!check.ok) {
      if (check.code === "already_answered" && check.details.late)
        await this.consentPath.settle(consent, EXPIRED);
      return check;
    }
    const event = { type: "answered" as const, answer, settle: check.settle, ...(by && { by }) };
    const settled = await this.consentPath.settle(consent, event, async () => {
      const permanent = this.consentStore.grant(consent, check.settle);
      if (permanent && session)
        await artifactsStub(this.env, session.tenantId, session.userId).addGrant(permanent);
    });
    // Settled meanwhile (by the alarm or a spoke's look): that settlement stands.
    const status = this.consentStore.get(consentId)?.status ?? "expired";
    if (!settled.ok) return failure("already_answered", status, { status, late: false });
    if (await this.schedule()) this.soon();
    return { ok: true, consent: shownConsent(this.consentStore.get(consentId)!) };
  }

  /**
   * The user came back from an app's authorization server (the spoke holds their tokens now, or
   * they refused): the query's `authorize` consent is settled and the query goes on.
   */
  async authorizationDone(
    queryId: string,
    subject: string,
    allowed: boolean,
    by?: Answerer,
  ): Promise<boolean> {
    const consent = this.consentStore.forSubject(queryId, subject);
    if (consent?.kind !== "authorize" || consent.status !== "pending") return false;
    const answer = { decision: allowed ? ("allow" as const) : ("deny" as const), scope: "once" as const };
    return (await this.answerConsent(consent.id, answer, by)).ok;
  }

  // --- user data rights (#34, user-data.ts): called by the user-data routes, never on a query's path ---

  exportData(maxQueries: number, maxBytes: number): HubExport | null {
    return this.userData.exportData(maxQueries, maxBytes);
  }

  erase(): Promise<HubErased> {
    return this.userData.erase();
  }

  // --- the alarm loop ---

  /**
   * Expires unanswered consents, advances the least recently touched active query by one step, and
   * reschedules: at once while work remains, else at the next consent's deadline.
   */
  override async alarm(): Promise<void> {
    if (!this.opened) return;
    await this.serially(async () => {
      // Each settled through the consent path; the query machine decides what that does to its query.
      for (const consent of this.consentStore.overdue(Date.now()))
        await this.consentPath.settle(consent, EXPIRED);
      const next = this.autoQueries().sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))[0];
      if (next) await this.step(next);
      await this.schedule();
    });
  }

  /**
   * Does an alarm's work right after this reply leaves, not when the alarm fires: under local
   * workerd that hop was 10 ms (p50) of a 24 ms zero-step query. The alarm stays set, so an eviction
   * or a failure here is picked up by it; `serially` keeps the two from advancing a query at once.
   * Called only when a query has work now (a new one, or `schedule` said so).
   */
  private soon(): void {
    setTimeout(() => {
      this.alarm().catch((error: unknown) =>
        console.error("hub: an early advance failed; the alarm retries", error),
      );
    }, 0);
  }

  /** One advance at a time in this object: the alarm's and an early one share this chain. */
  private advancing: Promise<void> = Promise.resolve();

  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.advancing.then(work);
    this.advancing = run.catch(() => {});
    return run;
  }

  /**
   * One step of the query now, whatever its stepping; false when there is no such query. How a
   * query started with `stepping: "manual"` advances (the tests' HubDO, test/worker/entry.ts).
   * Keyed by a symbol: RPC calls a method by its name, so no stub can reach this one.
   */
  protected async [STEP_QUERY](queryId: string): Promise<boolean> {
    const row = this.opened ? this.store.query(queryId) : null;
    if (row) await this.step(row);
    return row !== null;
  }

  private async step(query: QueryRecord): Promise<void> {
    const session = this.session();
    if (!session) return;
    this.traces.tracer.identify({ tenant: session.tenantId, session: session.id, user: session.userId });
    await this.lifecycle.step(query, session);
  }

  /** Sets the alarm; says whether a query has work to do now (then the alarm is due at once). */
  private async schedule(): Promise<boolean> {
    const working = this.autoQueries().length > 0;
    const at = working ? Date.now() : this.consentStore.nextExpiry();
    if (at !== null) await this.ctx.storage.setAlarm(at);
    return working;
  }

  /**
   * Every hub audit event goes to the tenant's log with the session and user, batched with this
   * isolate's other rows for the tenant (audit-sink.ts); it never blocks or fails.
   */
  private audit(type: AuditType, detail: Record<string, unknown>): void {
    const session = this.session();
    if (!session) return;
    const row = { sessionId: session.id, userId: session.userId, ...detail };
    this.ctx.waitUntil(writeAudit(this.env, session.tenantId, type, row));
  }

  private autoQueries(): QueryRecord[] {
    return this.store.activeQueries().filter((q) => q.options.stepping !== "manual");
  }

  private view(row: QueryRecord): QueryView {
    return viewQuery(this.store, this.consentStore, row);
  }

  /**
   * A spoke's report of its app's progress on a call this hub is waiting on (SpokeCall.callId):
   * written as the step's `step_progress` event. Called by SpokeDOs, never from HTTP.
   */
  stepProgress(callId: string, report: ProgressReport): boolean {
    return this.opened && this.progress.report(callId, report);
  }

  // --- collaboration between spokes (collaboration.ts): called by SpokeDOs, never from HTTP ---

  async discover(name: string): Promise<Discovery | null> {
    const session = this.session();
    return session ? discover(this.sql, this.env, session.tenantId, name) : null;
  }

  async requestCollaboration(request: CollaborationRequest): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? requestCollaboration(context, request) : failure("failed", "no session");
  }

  /** The asking spoke stopped waiting: the request is withdrawn, so a late answer relays nothing. */
  async withdrawCollaboration(consentId: string): Promise<void> {
    const consent = this.opened ? this.consentStore.get(consentId) : null;
    // The path refuses any consent but a spoke's request's, and one already settled.
    if (consent) await this.consentPath.settle(consent, { type: "withdrawn" });
  }

  async collaborationOutcome(consentId: string): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? collaborationOutcome(context, consentId) : failure("failed", "no session");
  }

  private collaborationContext() {
    const session = this.session();
    if (!session) return null;
    return {
      sql: this.sql,
      store: this.store,
      consents: this.consentStore,
      path: this.consentPath,
      env: this.env,
      session,
      load: (queryId: string) => {
        const query = this.store.query(queryId);
        return query?.plan && query.context ? this.lifecycle.load(query) : null;
      },
      audit: (type: AuditType, detail: Record<string, unknown>) => this.audit(type, detail),
    };
  }
}
