import { DurableObject } from "cloudflare:workers";
import {
  type QllmCall,
  type QllmResult,
  type ServingApp,
  type SpokeCall,
  type SpokeResult,
  type SpokeTryReport,
  VANILLA_SPOKE,
} from "../../contracts.ts";
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
import { tenantServing } from "../stubs.ts";
import { appCredential, modelFor, recordTokens } from "../tenant-replica/index.ts";
import { appTraceparent, parseTraceparent, Tracer } from "../tracing.ts";
import { WriteBehind } from "../write-behind.ts";
import type { PinCheck } from "./mcp.ts";
import { readMemory, rememberInteraction } from "./memory.ts";
import { type OwnerKey, SpokeOwner } from "./owner.ts";
import { PERSONAL_TOKEN_MIGRATIONS } from "./personal-token.ts";
import { callApp } from "./pipeline.ts";
import { runQllm } from "./qllm.ts";
import type { SpokeContext } from "./transports/transport.ts";
import { tryCall } from "./try.ts";
import {
  type PersonalTokenChange,
  type PersonalTokenSlot,
  type SpokeErased,
  type SpokeExport,
  SpokeUserData,
} from "./user-data.ts";
import { oauthTargetOf, type PendingAsk, USER_OAUTH_MIGRATIONS, UserOAuth } from "./user-oauth.ts";

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

/**
 * One per (tenant, user, app): the only thing that ever calls the app's endpoint. It calls only an
 * approved, enabled version, validates both directions against the declared schemas, signs every
 * request, and keeps the app's memory of this user.
 */
export class SpokeDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private readonly owner: SpokeOwner;
  private readonly memoryWrites = new WriteBehind();
  /** The user's data rights and personal token (user-data.ts). */
  private readonly userData: SpokeUserData;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
    this.owner = new SpokeOwner(this.sql);
    this.userData = new SpokeUserData({
      ctx,
      env,
      sql: this.sql,
      owner: this.owner,
      flushMemory: () => this.memoryWrites.flush(),
      erased: () => {
        this.pinCheck = null;
      },
    });
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
    this.owner.bind(call);
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
      personalToken: () => this.userData.personalToken(call),
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

  personalTokenSlot(owner: OwnerKey, change: PersonalTokenChange): Promise<PersonalTokenSlot> {
    return this.userData.personalTokenSlot(owner, change);
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

  /** Binds the owner and names this spoke in the user's index (user-data.ts). */
  private bind(call: OwnerKey): Promise<void> {
    return this.userData.bind(call);
  }

  // --- user data rights (#34, user-data.ts): called by the user-data routes, never on a call's path ---

  exportData(maxBytes: number): Promise<SpokeExport | null> {
    return this.userData.exportData(maxBytes);
  }

  erase(): Promise<SpokeErased> {
    return this.userData.erase();
  }

  /** Written just after the reply leaves (write-behind.ts): a crash then may forget this one record. */
  private remember(call: SpokeCall, response: unknown, outcome: string, read: string[] = []): void {
    this.memoryWrites.defer(() => rememberInteraction(this.sql, call, response, outcome, read));
  }
}
