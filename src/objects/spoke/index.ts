import { DurableObject } from "cloudflare:workers";
import * as z from "zod";
import {
  type QllmCall,
  type QllmResult,
  type ServingApp,
  type SpokeCall,
  type SpokeResult,
  type SpokeTryReport,
  VANILLA_SPOKE,
} from "../../contracts.ts";
import { decode } from "../../decode.ts";
import {
  DEFAULT_MODEL_LIMITS,
  type ModelConfig,
  ModelError,
  type ModelLimits,
  type ModelRole,
} from "../../llm/index.ts";
import { failure } from "../../result.ts";
import { writeAudit } from "../audit-sink.ts";
import { isReservedUserId } from "../names.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { artifactsStub, tenantServing } from "../stubs.ts";
import { appCredential, modelFor, recordTokens, servingApp } from "../tenant-replica/index.ts";
import { appTraceparent, parseTraceparent, Tracer } from "../tracing.ts";
import { WriteBehind } from "../write-behind.ts";
import type { PinCheck } from "./mcp.ts";
import { readMemory, rememberInteraction } from "./memory.ts";
import { PERSONAL_TOKEN_MIGRATIONS, PersonalToken } from "./personal-token.ts";
import { callApp } from "./pipeline.ts";
import { runQllm } from "./qllm.ts";
import type { SpokeContext } from "./transports/transport.ts";
import { tryCall } from "./try.ts";
import {
  oauthTargetOf,
  type PendingAsk,
  type Revocation,
  USER_OAUTH_MIGRATIONS,
  UserOAuth,
} from "./user-oauth.ts";

const MIGRATIONS = {
  spoke: [
    `CREATE TABLE owner (tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, app_id TEXT NOT NULL)`,
    `CREATE TABLE interactions (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, call_id TEXT NOT NULL, functionality TEXT NOT NULL,
       request TEXT NOT NULL, response TEXT, outcome TEXT NOT NULL, at TEXT NOT NULL)`,
    // The confidentiality levels an interaction holds (JSON array); null for older rows: never given to an agent.
    `ALTER TABLE interactions ADD COLUMN levels TEXT`,
    // Whether the user's index (ArtifactsDO) names this spoke yet: set once it does (#34).
    `ALTER TABLE owner ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0`,
  ],
  oauth: USER_OAUTH_MIGRATIONS,
  personal_token: PERSONAL_TOKEN_MIGRATIONS,
};
const LEGACY_LAYOUT = [["spoke", 2]] as const;

type Owner = { tenant_id: string; user_id: string; app_id: string; indexed: number };
const ownerOf = (o: Owner) => ({ tenantId: o.tenant_id, userId: o.user_id, appId: o.app_id });
/** Remembered requests and answers are whatever JSON the spoke stored. */
const Json = z.unknown();
const Levels = z.array(z.string());

/**
 * One per (tenant, user, app): the only thing that ever calls the app's endpoint. It calls only an
 * approved, enabled version, validates both directions against the declared schemas, signs every
 * request, and keeps the app's memory of this user.
 */
export class SpokeDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private owner: Owner | undefined;
  private readonly memoryWrites = new WriteBehind();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
  }

  async call(given: SpokeCall): Promise<SpokeResult> {
    await this.bind(given);
    this.tracer.identify({
      tenant: given.tenantId,
      user: given.userId,
      ...(given.sessionId && { session: given.sessionId }),
    });
    // The app-call span: under the hub's step, and the parent the app's own trace continues from.
    const parent = this.tracer.on ? parseTraceparent(given.traceparent) : null;
    const span = parent
      ? this.tracer.start("lattice.app_call", parent, {
          "lattice.app.id": given.appId,
          "lattice.app.functionality": given.functionality,
          "lattice.call_id": given.callId,
        })
      : null;
    const { traceparent: _, ...untraced } = given;
    const sent = span ? appTraceparent(this.env, span.context) : undefined;
    const call = sent ? { ...untraced, traceparent: sent } : untraced;
    const result = await callApp(call, this.context(call), (response, outcome, held) =>
      this.remember(call, response, outcome, held),
    );
    span?.end(result.ok ? "ok" : result.code, {
      ...(result.ok && { "lattice.app.version": result.appVersion }),
      ...(!result.ok && typeof result.details === "object" && result.details && "status" in result.details
        ? { "http.response.status_code": Number(result.details.status) }
        : {}),
    });
    return result;
  }

  /**
   * A developer's try-it call of `app` at the version they named (try.ts): this spoke's user is a
   * synthetic one, and the call leaves no memory here.
   */
  async tryCall(call: SpokeCall, app: ServingApp): Promise<SpokeTryReport> {
    // The isolation the try path rests on: a try in a real user's spoke is a bug, refused loudly.
    if (!isReservedUserId(call.userId)) throw new Error("a try-it call for a real user");
    this.bindOwner(call);
    return tryCall(call, app, this.context(call));
  }

  /** This spoke's spans (docs/traces.md); a no-op unless LATTICE_OTLP_ENDPOINT is set. */
  private readonly tracer = new Tracer(this.env, { object: "spoke" }, (p) => this.ctx.waitUntil(p));

  /** When this spoke last found the MCP server's tools matching the pins (in memory: an eviction rechecks). */
  private pinCheck: PinCheck | null = null;

  /** What of this spoke a transport uses (transports/transport.ts). */
  private context(call: SpokeCall): SpokeContext {
    return {
      env: this.env,
      tenant: {
        appCredential: (appId, boundTo) => appCredential(this.env, call.tenantId, appId, boundTo),
        recordToolDrift: (...report) => tenantServing(this.env, call.tenantId).recordToolDrift(...report),
      },
      // Named by user, so an export finds the row and an erasure redacts it (#34).
      audit: (type, detail) =>
        this.ctx.waitUntil(writeAudit(this.env, call.tenantId, type, { userId: call.userId, ...detail })),
      model: (timeoutMs) => this.model("spoke", call.tenantId, timeoutMs),
      memory: (limit, mayRead) => this.memory(limit, mayRead),
      oauth: () => this.oauth(call),
      personalToken: () => this.personalToken(call),
      pins: {
        last: () => this.pinCheck,
        checked: (check) => {
          this.pinCheck = check;
        },
      },
    };
  }

  // --- per-user OAuth (user-oauth.ts): the tokens of this user for this app ---

  /** For the hub's gate: whether this user has authorized the app; if not, where they sign in. */
  async authorization(
    ask: Pick<SpokeCall, "tenantId" | "userId" | "appId"> & PendingAsk,
  ): Promise<{ authorized: true } | { authorized: false; url: string }> {
    await this.bind(ask);
    const target = await oauthTargetOf(this.env, ask.tenantId, ask.appId);
    return target ? this.oauth(ask).status(target, ask) : { authorized: true };
  }

  /** The callback's code, for the nonce this spoke issued; what the authorization was asked for. */
  async completeAuthorization(
    done: Pick<SpokeCall, "tenantId" | "userId" | "appId"> & {
      nonce: string;
      code: string | null;
      iss?: string;
    },
  ): Promise<(PendingAsk & { authorized: boolean }) | null> {
    await this.bind(done);
    const target = await oauthTargetOf(this.env, done.tenantId, done.appId);
    if (!target) return null;
    const asked = await this.oauth(done).complete(target, done.nonce, done.code, done.iss);
    if (asked) {
      const type = asked.authorized ? "app_authorized" : "app_authorization_refused";
      this.ctx.waitUntil(
        writeAudit(this.env, done.tenantId, type, { appId: done.appId, userId: done.userId }),
      );
    }
    return asked;
  }

  /** The user revokes the app: tokens dropped here and revoked at the server. */
  async revokeAuthorization(owner: Pick<SpokeCall, "tenantId" | "userId" | "appId">): Promise<boolean> {
    await this.bind(owner);
    const target = await oauthTargetOf(this.env, owner.tenantId, owner.appId);
    // An app that no longer serves has no server to revoke at: its tokens are dropped all the same.
    return target ? this.oauth(owner).revoke(target) : this.oauth(owner).forgetAll();
  }

  // --- personal tokens (personal-token.ts): this user's own token for a `user_token` app ---

  /**
   * The user's personal token for the app's server: set, dropped, or whether it is set (never
   * read back). "not_found" when the app does not serve or takes no personal token.
   */
  async personalTokenSlot(
    owner: Pick<SpokeCall, "tenantId" | "userId" | "appId">,
    change: { set: string } | { drop: true } | null,
  ): Promise<{ ok: true; setAt: string | null } | { ok: false; code: "not_found" }> {
    // Indexed like a first call: a token set before any call is still found by export and erasure.
    await this.bind(owner);
    const app = await servingApp(this.env, owner.tenantId, owner.appId);
    const mcp = app?.manifest.mcp;
    const slot = this.personalToken(owner);
    if (mcp?.auth.type !== "user_token") {
      // An app that no longer serves (or changed kind) keeps no token of its users: dropping still works.
      if (change && "drop" in change && slot.forgetAll()) return { ok: true, setAt: null };
      return { ok: false, code: "not_found" };
    }
    if (change && "set" in change) {
      await slot.set(mcp.url, change.set);
      this.ctx.waitUntil(
        writeAudit(this.env, owner.tenantId, "personal_token_set", {
          appId: owner.appId,
          userId: owner.userId,
        }),
      );
    } else if (change) {
      if (!slot.forget(mcp.url)) return { ok: false, code: "not_found" };
      this.ctx.waitUntil(
        writeAudit(this.env, owner.tenantId, "personal_token_dropped", {
          appId: owner.appId,
          userId: owner.userId,
        }),
      );
      return { ok: true, setAt: null };
    }
    return { ok: true, setAt: slot.setAt(mcp.url) };
  }

  private personalToken(owner: Pick<SpokeCall, "tenantId" | "userId" | "appId">): PersonalToken {
    const secret = this.env.LATTICE_KEY_SECRET;
    if (!secret) throw new Error("personal tokens need LATTICE_KEY_SECRET to seal them");
    return new PersonalToken(this.sql, secret, owner);
  }

  private oauth(owner: Pick<SpokeCall, "tenantId" | "userId" | "appId">): UserOAuth {
    const secret = this.env.LATTICE_KEY_SECRET;
    if (!secret) throw new Error("per-user OAuth needs LATTICE_KEY_SECRET to seal tokens");
    return new UserOAuth(this.sql, secret, owner);
  }

  /**
   * A vanilla spoke's q-llm step: memoryless, no tools, bound to the step's schema. It reads only the
   * inputs the plan gave it; its answer is re-checked against the schema, and the hub labels it with
   * the join of those inputs, so an obedient model here can change data but never raise trust.
   */
  async qllm(request: QllmCall): Promise<QllmResult> {
    // Whose model (and key) this uses is the tenant's: a call for another tenant is a bug, refused loudly.
    await this.bind({ tenantId: request.tenantId, userId: request.userId, appId: VANILLA_SPOKE });
    this.tracer.identify({ tenant: request.tenantId, user: request.userId });
    // The model call's span, under the hub's step: which model, its tokens, its outcome; never a word.
    const parent = this.tracer.on ? parseTraceparent(request.traceparent) : null;
    const span = parent
      ? this.tracer.start("lattice.qllm", parent, { "gen_ai.operation.name": "chat" })
      : null;
    const { traceparent: _, ...untraced } = request;
    let result: QllmResult;
    try {
      const { model, limits } = await this.model("qllm", request.tenantId, request.modelTimeoutMs);
      span?.set({ "gen_ai.provider.name": model.provider, "gen_ai.request.model": model.model });
      const record = async (tokens: number) => recordTokens(this.env, request.tenantId, tokens);
      result = await runQllm(untraced, { config: model, limits, ai: this.env.AI }, record);
    } catch (error) {
      span?.end(error instanceof ModelError ? error.code : "internal_error");
      if (error instanceof ModelError) return failure(error.code, error.message);
      throw error;
    }
    span?.end(result.ok ? "ok" : result.code, result.ok ? { "lattice.qllm.tokens": result.tokens } : {});
    return result;
  }

  /**
   * The tenant's model for a role, from this isolate's replica of the tenant (tenant-replica/): keys
   * are opened by the TenantDO and never travel in a hub's call or a query row.
   */
  private async model(
    role: ModelRole,
    tenantId: string,
    timeoutMs: number,
  ): Promise<{ model: ModelConfig; limits: ModelLimits }> {
    const resolved = await modelFor(this.env, tenantId, role);
    if (!resolved.ok) throw new ModelError(resolved.code, resolved.message);
    return { model: resolved.model, limits: { ...DEFAULT_MODEL_LIMITS, timeoutMs } };
  }

  /** The app's memory of this user (memory.ts). */
  memory(limit = 20, mayRead: readonly string[] | null = null): ReturnType<typeof readMemory> {
    this.memoryWrites.flush(); // reads its own writes
    return readMemory(this.sql, limit, mayRead);
  }

  /**
   * Binds the owner and, the first time, names this spoke in the user's index (ArtifactsDO), awaited
   * so an export or erasure started after this call finds it: one call per spoke's lifetime, never
   * on later calls (the flag is read with the owner row, once per instance). A spoke used before the
   * index existed is named at its next use.
   */
  private async bind(call: Pick<SpokeCall, "tenantId" | "userId" | "appId">): Promise<void> {
    this.bindOwner(call);
    if (this.owner?.indexed) return;
    await artifactsStub(this.env, call.tenantId, call.userId).noteObject("spoke", call.appId);
    this.sql`UPDATE owner SET indexed = 1`;
    if (this.owner) this.owner.indexed = 1;
  }

  // --- user data rights (#34): called by the user-data routes, never on a call's path ---

  /** The app's memory of this user as stored and the OAuth connections (never their tokens). */
  async exportData(): Promise<{
    appId: string;
    memory: Array<{
      functionality: string;
      request: unknown;
      response: unknown;
      outcome: string;
      at: string;
      levels: string[] | null;
    }>;
    oauth: Array<{
      tokenUrl: string;
      clientId: string;
      resource: string;
      scope: string | null;
      connectedAt: string;
    }>;
    personalTokens: Array<{ serverUrl: string; setAt: string }>;
  } | null> {
    this.memoryWrites.flush();
    const owner = this.storedOwner();
    if (!owner) return null;
    type Row = {
      functionality: string;
      request: string;
      response: string | null;
      outcome: string;
      at: string;
      levels: string | null;
    };
    // Bounded by what a spoke keeps (memory.ts: KEPT_INTERACTIONS). The levels go along: the route
    // withholds from a user token what is above the display cap.
    const memory = this
      .sql<Row>`SELECT functionality, request, response, outcome, at, levels FROM interactions ORDER BY seq`.map(
      (row) => ({
        functionality: row.functionality,
        request: decode(Json, row.request, "a remembered request"),
        response: row.response === null ? null : decode(Json, row.response, "a remembered answer"),
        outcome: row.outcome,
        at: row.at,
        levels: row.levels === null ? null : decode(Levels, row.levels, "a remembered label"),
      }),
    );
    const secret = this.env.LATTICE_KEY_SECRET;
    const connections = secret ? new UserOAuth(this.sql, secret, ownerOf(owner)).connections() : [];
    const target = connections.length ? await oauthTargetOf(this.env, owner.tenant_id, owner.app_id) : null;
    const oauth = connections.map((c) => ({ ...c, scope: target?.auth.scope ?? null }));
    const personalTokens = secret ? this.personalToken(ownerOf(owner)).list() : [];
    return { appId: owner.app_id, memory, oauth, personalTokens };
  }

  /**
   * Erases what this spoke holds of its user: OAuth tokens revoked at their server where it names
   * where (best effort, bounded in time) and dropped, pending sign-ins, memory, and the owner row (a
   * later use binds afresh). A spoke never used, or erased already, counts nothing.
   */
  async erase(): Promise<{
    appId: string | null;
    interactions: number;
    oauthTokens: number;
    personalTokens: number;
    revocation: Revocation;
  }> {
    this.memoryWrites.flush();
    const owner = this.storedOwner();
    if (!owner)
      return { appId: null, interactions: 0, oauthTokens: 0, personalTokens: 0, revocation: "none" };
    const secret = this.env.LATTICE_KEY_SECRET;
    let oauth: { tokens: number; revocation: Revocation } = { tokens: 0, revocation: "none" };
    if (secret) {
      const target = await oauthTargetOf(this.env, owner.tenant_id, owner.app_id).catch(() => null);
      oauth = await new UserOAuth(this.sql, secret, ownerOf(owner)).erase(target);
    } else {
      this.sql`DELETE FROM oauth_tokens`;
      this.sql`DELETE FROM oauth_pending`;
    }
    const interactions = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM interactions`[0]!.n;
    this.sql`DELETE FROM interactions`;
    // Personal tokens have no revocation endpoint to call: the user revokes them where they made them.
    const personalTokens = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM personal_tokens`[0]!.n;
    this.sql`DELETE FROM personal_tokens`;
    this.sql`DELETE FROM owner`;
    this.owner = undefined;
    this.pinCheck = null;
    return {
      appId: owner.app_id,
      interactions,
      oauthTokens: oauth.tokens,
      personalTokens,
      revocation: oauth.revocation,
    };
  }

  /** The owner row, read once per instance (written once; cleared only by an erasure). */
  private storedOwner(): Owner | undefined {
    this.owner ??= this.sql<Owner>`SELECT * FROM owner`[0];
    return this.owner;
  }

  /** A spoke serves exactly one (tenant, user, app); a call naming another is a bug, refused loudly. */
  private bindOwner(call: Pick<SpokeCall, "tenantId" | "userId" | "appId">): void {
    // Read once per instance: the owner row is written once and never changes.
    this.owner ??= this.sql<Owner>`SELECT * FROM owner`[0];
    const owner = this.owner;
    if (!owner) {
      this
        .sql`INSERT INTO owner (tenant_id, user_id, app_id) VALUES (${call.tenantId}, ${call.userId}, ${call.appId})`;
      this.owner = { tenant_id: call.tenantId, user_id: call.userId, app_id: call.appId, indexed: 0 };
    } else if (
      owner.tenant_id !== call.tenantId ||
      owner.user_id !== call.userId ||
      owner.app_id !== call.appId
    ) {
      throw new Error("spoke called for another tenant, user or app");
    }
  }

  /** Written just after the reply leaves (write-behind.ts): a crash then may forget this one record. */
  private remember(call: SpokeCall, response: unknown, outcome: string, read: string[] = []): void {
    this.memoryWrites.defer(() => rememberInteraction(this.sql, call, response, outcome, read));
  }
}
