import { DurableObject } from "cloudflare:workers";
import type { Scope } from "../../policy/index.ts";
import type { Env } from "../../worker/env.ts";
import { randomId } from "../crypto.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { tenantStub, vaultStub } from "../stubs.ts";
import {
  type CollaborationContext,
  type CollaborationReply,
  type CollaborationRequest,
  collaborationOutcome,
  type Discovery,
  discover,
  requestCollaboration,
} from "./collaboration.ts";
import { CONSENT_MIGRATIONS, type Consent, type ConsentStatus, ConsentStore } from "./consents.ts";
import { EPHEMERAL_MIGRATIONS, ephemeralId, type FunctionalityRef, resolveEphemeral } from "./ephemeral.ts";
import { Operator, type QueryOptions } from "./operator.ts";
import { type HubEvent, HubStore, type QueryRow, type Session, STORE_MIGRATIONS } from "./store.ts";
import { type QueryView, viewQuery } from "./view.ts";

// Append only: each entry runs once per object, in order.
const MIGRATIONS = [...EPHEMERAL_MIGRATIONS, ...STORE_MIGRATIONS, ...CONSENT_MIGRATIONS];

export interface ConsentAnswer {
  decision: "allow" | "deny";
  scope: Scope;
  /** For app_selection: the tool picked from the consent's options. */
  choice?: string;
}

export type AnswerResult =
  | { ok: true; consent: Consent }
  | { ok: false; code: "not_found" | "query_finished" | "invalid_choice" }
  | { ok: false; code: "already_answered"; status: ConsentStatus }
  | { ok: false; code: "scope_not_allowed"; allowed: readonly Scope[] };

export type StartResult =
  | { ok: true; query: QueryView }
  | { ok: false; code: "idempotency_conflict" | "no_session" };

/**
 * One per (tenant, session), recording its user: the deterministic operator. Queries advance in
 * alarms, one effect per alarm, so the object may be evicted between any two steps and resumes
 * from its SQLite state.
 */
export class HubDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private readonly store: HubStore;
  private readonly consentStore: ConsentStore;
  /** Identifies this in-memory instance: a new one after every eviction or restart. */
  private readonly instance = randomId("inst", 6);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS);
    this.store = new HubStore(this.sql);
    this.consentStore = new ConsentStore(this.sql);
    // After a restart, make sure unfinished queries have an alarm to resume them.
    ctx.blockConcurrencyWhile(async () => {
      if (this.autoQueries().length && (await ctx.storage.getAlarm()) === null) {
        await ctx.storage.setAlarm(Date.now());
      }
    });
  }

  open(session: Omit<Session, "createdAt">): Session {
    return this.store.openSession(session);
  }

  session(): Session | null {
    return this.store.session();
  }

  /** Records a query and schedules its planning. An Idempotency-Key seen before returns that query. */
  async startQuery(
    text: string,
    idempotencyKey: string | null,
    options: QueryOptions = {},
  ): Promise<StartResult> {
    if (!this.store.session()) return { ok: false, code: "no_session" };
    if (idempotencyKey) {
      const seen = this.store.queryByIdempotencyKey(idempotencyKey);
      if (seen)
        return seen.text === text
          ? { ok: true, query: this.view(seen) }
          : { ok: false, code: "idempotency_conflict" };
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

  /**
   * Expires unanswered consents, advances the least recently touched active query by one step, and
   * reschedules: at once while work remains, else at the next consent's deadline.
   */
  override async alarm(): Promise<void> {
    for (const consent of this.consentStore.overdue(Date.now())) this.expire(consent);
    const next = this.autoQueries().sort((a, b) => a.updated_at.localeCompare(b.updated_at))[0];
    if (next) await this.advanceQuery(next);
    await this.schedule();
  }

  consents(filter: { status?: ConsentStatus; queryId?: string } = {}): Consent[] {
    return this.consentStore.list(filter);
  }

  /** The user's answer. Errors are returned, not thrown, so the route maps each to its status. */
  async answerConsent(consentId: string, answer: ConsentAnswer): Promise<AnswerResult> {
    const consent = this.consentStore.get(consentId);
    if (!consent) return { ok: false, code: "not_found" };
    if (consent.status === "pending" && Date.parse(consent.expiresAt) <= Date.now()) {
      this.expire(consent); // late: the deadline passed even if the alarm has not run yet
      return { ok: false, code: "already_answered", status: "expired" };
    }
    if (consent.status !== "pending") return { ok: false, code: "already_answered", status: consent.status };
    const query = this.store.query(consent.queryId);
    // A collaboration is asked while its step runs; every other consent while the query waits.
    const waiting =
      consent.kind === "collaboration" ? query?.status === "running" : query?.status === "awaiting_consent";
    if (!query || !waiting) return { ok: false, code: "query_finished" };
    // A private session persists nothing beyond itself, a standing grant included.
    if (answer.scope === "permanent" && this.store.session()?.private) {
      return {
        ok: false,
        code: "scope_not_allowed",
        allowed: consent.scopes.filter((s) => s !== "permanent"),
      };
    }
    if (!consent.scopes.includes(answer.scope))
      return { ok: false, code: "scope_not_allowed", allowed: consent.scopes };
    const allow = answer.decision === "allow";
    let choice: string | null = null;
    if (allow && consent.options?.length) {
      // The user picks the app; with a single option, allowing picks it.
      choice = answer.choice ?? (consent.options.length === 1 ? consent.options[0]!.tool : null);
      if (!consent.options.some((o) => o.tool === choice)) return { ok: false, code: "invalid_choice" };
    }
    this.consentStore.settle(consent.id, allow ? "allowed" : "denied", answer.scope, choice);
    if (allow && consent.grantSubject && answer.scope === "session") {
      this.consentStore.grantForSession(consent.grantSubject, choice);
    }
    if (allow && consent.grantSubject && answer.scope === "permanent") {
      const session = this.store.session()!;
      await vaultOf(this.env, session).addGrant({
        kind: consent.kind,
        subject: consent.grantSubject,
        choice,
        description: describeGrant(consent, choice),
      });
    }
    const pending = this.consentStore.list({ status: "pending", queryId: query.id });
    if (query.status === "awaiting_consent" && !pending.length)
      this.store.update(query.id, { status: "running" });
    this.store.emit(query.id, "consent_answered", {
      consentId,
      decision: answer.decision,
      scope: answer.scope,
    });
    this.audit("consent_answered", { queryId: query.id, consentId, kind: consent.kind, ...answer });
    await this.schedule();
    return { ok: true, consent: this.consentStore.get(consentId)! };
  }

  /** One step of one query, on demand: how tests drive a query started with `stepping: "manual"`. */
  async advance(queryId: string): Promise<QueryView | null> {
    const row = this.store.query(queryId);
    if (!row) return null;
    await this.advanceQuery(row);
    return this.query(queryId);
  }

  instanceId(): string {
    return this.instance;
  }

  private async advanceQuery(row: QueryRow): Promise<void> {
    this.store.update(row.id, {}); // touched: the next alarm serves the query that waited longest
    const session = this.store.session();
    if (session)
      await new Operator(this.store, this.consentStore, this.env, session, (type, detail) =>
        this.audit(type, detail),
      ).advance(row, options(row));
  }

  private expire(consent: Consent): void {
    this.consentStore.settle(consent.id, "expired", null, null);
    this.audit("consent_expired", { queryId: consent.queryId, consentId: consent.id, kind: consent.kind });
    // Only a query that waits on this answer stops; a collaboration just goes unanswered.
    if (consent.kind === "collaboration" || this.store.query(consent.queryId)?.status !== "awaiting_consent")
      return;
    const error = { code: "consent_expired", message: `nobody answered the ${consent.kind} consent in time` };
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
    void this.tenantOf(session)
      .audit(type, { sessionId: session.id, userId: session.userId, ...detail })
      .catch(() => {});
  }

  private autoQueries(): QueryRow[] {
    return this.store.activeQueries().filter((q) => options(q).stepping !== "manual");
  }

  // --- collaboration between spokes (collaboration.ts): called by SpokeDOs, never from HTTP ---

  async discover(name: string): Promise<Discovery | null> {
    const session = this.store.session();
    return session ? discover(this.sql, this.tenantOf(session), name) : null;
  }

  async requestCollaboration(request: CollaborationRequest): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? requestCollaboration(context, request) : { state: "failed", message: "no session" };
  }

  /** The asking spoke stopped waiting: the request is withdrawn, so a late answer relays nothing. */
  withdrawCollaboration(consentId: string): void {
    const consent = this.consentStore.get(consentId);
    if (consent?.kind === "collaboration") this.consentStore.settle(consentId, "expired", null, null);
  }

  async collaborationOutcome(consentId: string): Promise<CollaborationReply> {
    const context = this.collaborationContext();
    return context ? collaborationOutcome(context, consentId) : { state: "failed", message: "no session" };
  }

  private collaborationContext(): CollaborationContext | null {
    const session = this.store.session();
    if (!session) return null;
    const tenant = this.tenantOf(session);
    return {
      sql: this.sql,
      store: this.store,
      consents: this.consentStore,
      env: this.env,
      session,
      tenant,
      audit: (type, detail) => this.audit(type, detail),
    };
  }

  private tenantOf(session: Session) {
    return tenantStub(this.env, session.tenantId);
  }

  ephemeralId(ref: FunctionalityRef): string {
    return ephemeralId(this.sql, ref);
  }

  resolveEphemeral(fxId: string): FunctionalityRef | null {
    return resolveEphemeral(this.sql, fxId);
  }

  private view(row: QueryRow): QueryView {
    return viewQuery(this.store, this.consentStore, row);
  }
}

function options(row: QueryRow): QueryOptions {
  return JSON.parse(row.options) as QueryOptions;
}

function vaultOf(env: Env, session: Session) {
  return vaultStub(env, session.tenantId, session.userId);
}

function describeGrant(consent: Consent, choice: string | null): string {
  if (consent.kind === "app_selection") return `use ${choice} for ${consent.functionality}`;
  return `share data from ${(consent.from ?? []).join(", ") || "your apps"} with ${consent.functionality}`;
}
