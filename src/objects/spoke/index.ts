import { DurableObject } from "cloudflare:workers";
import { endpointProblem, modeOf } from "../../apps/egress.ts";
import { schemaViolations } from "../../apps/schemas.ts";
import type { AuditType } from "../../audit-types.ts";
import {
  type QllmCall,
  type QllmResult,
  type ServingApp,
  type SpokeCall,
  type SpokeErrorCode,
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
import { MCP_LIMITS } from "../../mcp/connection.ts";
import { failure } from "../../result.ts";
import { sendAudit } from "../audit-sink.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { hubStub, tenantStub } from "../stubs.ts";
import { WriteBehind } from "../write-behind.ts";
import { runAgent } from "./agent.ts";
import { DEFAULT_LIMITS, postSigned } from "./endpoint.ts";
import { HeldModel } from "./held-model.ts";
import { callMcpTool, type PinCheck, type ToolCall } from "./mcp.ts";
import { readMemory, rememberInteraction } from "./memory.ts";
import { runQllm } from "./qllm.ts";
import {
  oauthTargetFor,
  oauthTargetOf,
  type PendingAsk,
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
  ],
  oauth: USER_OAUTH_MIGRATIONS,
};
const LEGACY_LAYOUT = [["spoke", 2]] as const;

/** How many remembered interactions an agent is given, of how many recent ones looked at. */
const AGENT_MEMORY = 10;

/**
 * One per (tenant, user, app): the only thing that ever calls the app's endpoint. It calls only an
 * approved, enabled version, validates both directions against the declared schemas, signs every
 * request, and keeps the app's memory of this user.
 */
export class SpokeDO extends DurableObject<Env> {
  private readonly sql: Sql;
  private owner: { tenant_id: string; user_id: string; app_id: string } | undefined;
  private readonly memoryWrites = new WriteBehind();
  /** The vanilla spoke's q-llm model between calls (held-model.ts). */
  private readonly qllmModel = new HeldModel();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
  }

  async call(call: SpokeCall): Promise<SpokeResult> {
    this.bindOwner(call);
    const tenant = tenantStub(this.env, call.tenantId);
    const audit = (type: AuditType, detail: Record<string, unknown>) =>
      sendAudit(tenant, type, {
        appId: call.appId,
        functionality: call.functionality,
        callId: call.callId,
        ...detail,
      });

    // One round trip: the serving version, the functionality, and the day's app-call quota.
    const begun = await tenant.beginAppCall(call.appId, call.functionality, call.appVersion);
    if (!begun.ok) return fail(begun.code, begun.message);
    const { app } = begun;
    const fn = app.manifest.functionalities.find((f) => f.name === call.functionality)!;

    // Problems are named by places in the declared schema: the request may carry other apps' data.
    const requestProblems = schemaViolations(fn.request, call.request);
    if (requestProblems.length) {
      await audit("malformed_app_request", { problems: requestProblems });
      return fail(
        "invalid_request",
        "the request does not match the functionality's schema",
        requestProblems,
      );
    }
    const target = fn.tool ? app.manifest.mcp?.url : app.manifest.endpoint;
    const egress =
      target === undefined ? "the app names no URL for it" : endpointProblem(target, modeOf(this.env));
    if (egress) {
      await audit("egress_refused", { endpoint: target, reason: egress });
      return fail("egress_refused", egress);
    }
    if (fn.tool) return this.callTool(call, app, { ...fn, tool: fn.tool });

    if (app.manifest.agent && Object.hasOwn(app.manifest.agent.functionalities, fn.name)) {
      if (!call.agent) return fail("agent_not_configured", "no model is configured for this agentic app");
      const { collaboration: link, modelTimeoutMs, ...agent } = call.agent;
      let model: Awaited<ReturnType<SpokeDO["model"]>>;
      try {
        model = await this.model("spoke", call.tenantId, modelTimeoutMs);
      } catch (error) {
        if (error instanceof ModelError) return fail(error.code, error.message);
        throw error;
      }
      const hub = link && hubStub(this.env, call.tenantId, link.sessionId);
      // Memory keeps its labels: only what this call may carry anyway is given (all of it in a control run).
      const remembered =
        call.remember === false || !call.memory ? [] : this.memory(AGENT_MEMORY, call.memory.mayRead);
      const rememberedLevels = [...new Set(remembered.flatMap((r) => r.levels ?? []))];
      const outcome = await runAgent({
        app,
        ...(hub &&
          link && {
            hub: {
              find: (name) => hub.discover(name),
              request: (fxId, request, read, carried) =>
                hub.requestCollaboration({ ...link, fromApp: app.name, fxId, request, read, carried }),
              outcome: (consentId) => hub.collaborationOutcome(consentId),
              withdraw: (consentId) => hub.withdrawCollaboration(consentId),
            },
          }),
        functionality: fn,
        request: call.request as Record<string, unknown>,
        memory: remembered.map(({ levels: _levels, ...record }) => record),
        idempotencyKey: call.idempotencyKey,
        callId: call.callId,
        settings: { ...agent, ...model, ai: this.env.AI },
        carries: [...(call.memory ? [call.memory.carries] : []), ...rememberedLevels],
        readRequest: readOfRequest(call.request, agent.trustedArgs, remembered.length > 0),
      });
      await tenant.recordTokens(outcome.tokens);
      for (const event of outcome.events.filter((e) => e.type === "visor_exception")) {
        // The rule that fired, not the values: the log outlives the session (private ones too).
        await audit("visor_exception", { tool: event.tool, exception: { type: event.exception?.type } });
      }
      const held = [...rememberedLevels, ...(outcome.ok ? outcome.relayed : [])];
      this.remember(call, outcome.ok ? outcome.value : null, outcome.ok ? "ok" : outcome.code, held);
      if (!outcome.ok)
        return {
          ...failure(outcome.code, outcome.message),
          events: outcome.events,
          ...(outcome.rule && { rule: outcome.rule }),
        };
      return {
        ok: true,
        value: outcome.value,
        appVersion: app.version,
        readUntrusted: outcome.readUntrusted,
        relayed: outcome.relayed,
        remembered: rememberedLevels,
        events: outcome.events,
      };
    }

    const result = await postSigned(
      `${(app.manifest.endpoint ?? "").replace(/\/+$/, "")}/${fn.name}`,
      JSON.stringify(call.request),
      { secrets: app.secrets, idempotencyKey: call.idempotencyKey, callId: call.callId },
      { ...DEFAULT_LIMITS, ...call.limits },
    );
    if (!result.ok) {
      // The code and status only: the rest of an app's failure is its own (or its network's) words.
      await audit("app_call_failed", { code: result.code, ...(result.status && { status: result.status }) });
      this.remember(call, null, result.code);
      return fail(result.code, result.message);
    }
    const responseProblems = schemaViolations(fn.response, result.value);
    if (responseProblems.length) {
      await audit("malformed_app_response", { problems: responseProblems });
      this.remember(call, null, "invalid_response");
      return fail(
        "invalid_response",
        "the app's answer does not match its declared schema",
        responseProblems,
      );
    }
    this.remember(call, result.value, "ok");
    return { ok: true, value: result.value, appVersion: app.version };
  }

  /** When this spoke last found the MCP server's tools matching the pins (in memory: an eviction rechecks). */
  private pinCheck: PinCheck | null = null;

  /** An MCP tool call (mcp.ts): pins, call, result checks; remembered like an HTTP call. */
  private async callTool(call: SpokeCall, app: ServingApp, fn: ToolCall["fn"]): Promise<SpokeResult> {
    const tenant = tenantStub(this.env, call.tenantId);
    const limits = {
      timeoutMs: call.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      maxResponseBytes: Math.max(
        call.limits?.maxResponseBytes ?? MCP_LIMITS.maxResponseBytes,
        MCP_LIMITS.maxResponseBytes,
      ),
    };
    // The app in hand: its OAuth settings need no second trip to the tenant.
    const oauthTarget = await oauthTargetFor(this.env, call.tenantId, app);
    const userToken = oauthTarget ? await this.oauth(call).accessToken(oauthTarget) : undefined;
    const result = await callMcpTool(
      {
        app,
        fn,
        args: call.request as Record<string, unknown>,
        sessionId: call.sessionId,
        limits,
        checkPins: call.checkPins !== false,
        ...(userToken && { userToken }),
      },
      tenant,
      this.pinCheck,
    );
    if (!result.ok) {
      // A token the server no longer takes: dropped, so the next query asks the user to sign in again.
      if (result.code === "authorization_required" && oauthTarget && userToken)
        this.oauth(call).forget(oauthTarget);
      await sendAudit(tenant, "app_call_failed", {
        appId: call.appId,
        functionality: call.functionality,
        callId: call.callId,
        code: result.code,
      });
      this.remember(call, null, result.code);
      return fail(result.code, result.message, result.problems);
    }
    this.pinCheck = result.pinCheck;
    this.remember(call, result.value, "ok");
    return { ok: true, value: result.value, appVersion: app.version };
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
      await sendAudit(tenantStub(this.env, done.tenantId), type, { appId: done.appId, userId: done.userId });
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
      const { model, limits } = await this.model(
        "qllm",
        request.tenantId,
        request.modelTimeoutMs,
        this.qllmModel,
      );
      const tenant = tenantStub(this.env, request.tenantId);
      // The count goes out without waiting for its reply (HeldModel says what the reply can end).
      const record = async (tokens: number) => {
        tenant.recordTokens(tokens).then(
          (news) => this.qllmModel.heard(news),
          (error: unknown) => console.error("spoke: a q-llm call's tokens were not counted", error),
        );
      };
      return await runQllm(request, { config: model, limits, ai: this.env.AI }, record);
    } catch (error) {
      if (error instanceof ModelError) return failure(error.code, error.message);
      throw error;
    }
  }

  /**
   * The tenant's model for a role, resolved by the tenant when needed: keys stay sealed in the
   * TenantDO and never travel in a hub's call or a query row. With `held`, a model resolved less
   * than a second ago is used again (held-model.ts).
   */
  private async model(
    role: ModelRole,
    tenantId: string,
    timeoutMs: number,
    held?: HeldModel,
  ): Promise<{ model: ModelConfig; limits: ModelLimits }> {
    const limits = { ...DEFAULT_MODEL_LIMITS, timeoutMs };
    const kept = held?.get();
    if (kept) return { model: kept, limits };
    const resolved = await tenantStub(this.env, tenantId).modelFor(role);
    if (!resolved.ok) throw new ModelError(resolved.code, resolved.message);
    held?.hold(resolved.model, resolved.version);
    return { model: resolved.model, limits };
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

function fail(code: SpokeErrorCode, message: string, problems?: string[]): SpokeResult {
  return problems ? { ...failure(code, message), problems } : failure(code, message);
}

/**
 * What an agent reads besides its tools, in the user's words: its developer's instructions always
 * (app-written text), request data the user did not write, and its memory.
 */
function readOfRequest(request: unknown, trusted: readonly string[], remembers: boolean): string[] {
  const untrustedArgs =
    request !== null && typeof request === "object" && Object.keys(request).some((k) => !trusted.includes(k));
  return [
    "its developer's instructions",
    ...(untrustedArgs ? ["request data you did not write"] : []),
    ...(remembers ? ["its memory of earlier requests"] : []),
  ];
}
