import { DurableObject } from "cloudflare:workers";
import {
  type QllmCall,
  type QllmResult,
  type SpokeCall,
  type SpokeResult,
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
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { tenantServing } from "../stubs.ts";
import { appCredential, modelFor, recordTokens, servingApp } from "../tenant-replica/index.ts";
import { WriteBehind } from "../write-behind.ts";
import type { PinCheck } from "./mcp.ts";
import { readMemory, rememberInteraction } from "./memory.ts";
import { PERSONAL_TOKEN_MIGRATIONS, PersonalToken } from "./personal-token.ts";
import { callApp } from "./pipeline.ts";
import { runQllm } from "./qllm.ts";
import type { SpokeContext } from "./transports/transport.ts";
import { oauthTargetOf, type PendingAsk, USER_OAUTH_MIGRATIONS, UserOAuth } from "./user-oauth.ts";

const MIGRATIONS = {
  spoke: [
    `CREATE TABLE owner (tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, app_id TEXT NOT NULL)`,
    `CREATE TABLE interactions (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, call_id TEXT NOT NULL, functionality TEXT NOT NULL,
       request TEXT NOT NULL, response TEXT, outcome TEXT NOT NULL, at TEXT NOT NULL)`,
    // The confidentiality levels an interaction holds (JSON array); null for older rows: never given to an agent.
    `ALTER TABLE interactions ADD COLUMN levels TEXT`,
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
  private owner: { tenant_id: string; user_id: string; app_id: string } | undefined;
  private readonly memoryWrites = new WriteBehind();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
  }

  async call(call: SpokeCall): Promise<SpokeResult> {
    this.bindOwner(call);
    return callApp(call, this.context(call), (response, outcome, held) =>
      this.remember(call, response, outcome, held),
    );
  }

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
      audit: (type, detail) => this.ctx.waitUntil(writeAudit(this.env, call.tenantId, type, detail)),
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
    this.bindOwner(ask);
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
    this.bindOwner(done);
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
    this.bindOwner(owner);
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
    this.bindOwner(owner);
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
    this.bindOwner({ tenantId: request.tenantId, userId: request.userId, appId: VANILLA_SPOKE });
    try {
      const { model, limits } = await this.model("qllm", request.tenantId, request.modelTimeoutMs);
      const record = async (tokens: number) => recordTokens(this.env, request.tenantId, tokens);
      return await runQllm(request, { config: model, limits, ai: this.env.AI }, record);
    } catch (error) {
      if (error instanceof ModelError) return failure(error.code, error.message);
      throw error;
    }
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

  /** A spoke serves exactly one (tenant, user, app); a call naming another is a bug, refused loudly. */
  private bindOwner(call: Pick<SpokeCall, "tenantId" | "userId" | "appId">): void {
    // Read once per instance: the owner row is written once and never changes.
    this.owner ??= this.sql<{ tenant_id: string; user_id: string; app_id: string }>`SELECT * FROM owner`[0];
    const owner = this.owner;
    if (!owner) {
      this.sql`INSERT INTO owner VALUES (${call.tenantId}, ${call.userId}, ${call.appId})`;
      this.owner = { tenant_id: call.tenantId, user_id: call.userId, app_id: call.appId };
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
