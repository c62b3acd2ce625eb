import * as z from "zod";
import { decode } from "../../decode.ts";
import { writeAudit } from "../audit-sink.ts";
import { jsonBytes } from "../export-budget.ts";
import type { Sql } from "../sql.ts";
import { artifactsStub } from "../stubs.ts";
import { servingApp } from "../tenant-replica/index.ts";
import { type OwnerKey, ownerOf, type SpokeOwner } from "./owner.ts";
import { PersonalToken } from "./personal-token.ts";
import { oauthTargetOf, type Revocation, UserOAuth } from "./user-oauth.ts";

/** Remembered requests and answers are whatever JSON the spoke stored. */
const Json = z.unknown();
const Levels = z.array(z.string());

/** What a spoke holds of its user, for their export (#34). */
export type SpokeExport = {
  appId: string;
  /** Memory past the byte budget it was given was left out (oldest kept). */
  memoryTruncated: boolean;
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
};

export type SpokeErased = {
  appId: string | null;
  interactions: number;
  oauthTokens: number;
  personalTokens: number;
  revocation: Revocation;
};

export type PersonalTokenChange = { set: string } | { drop: true } | null;
export type PersonalTokenSlot = { ok: true; setAt: string | null } | { ok: false; code: "not_found" };

/** What the user-data rights need of their spoke (SpokeDO). */
export interface SpokeUserDataContext {
  ctx: DurableObjectState;
  env: Env;
  sql: Sql;
  owner: SpokeOwner;
  /** Writes the memory records still deferred (write-behind.ts), so what is read or erased is whole. */
  flushMemory: () => void;
  /** What the spoke keeps in memory of its user is dropped with the rows (the MCP pin check). */
  erased: () => void;
}

/**
 * A spoke's part in its user's data rights (#34): naming the spoke in the user's index
 * (ArtifactsDO), its export and erasure (called by the user-data routes, never on a call's path),
 * and the user's personal token for the app (personal-token.ts).
 */
export class SpokeUserData {
  private readonly spoke: SpokeUserDataContext;

  constructor(spoke: SpokeUserDataContext) {
    this.spoke = spoke;
  }

  /**
   * Binds the owner and, the first time, names this spoke in the user's index (ArtifactsDO), awaited
   * so an export or erasure started after this call finds it: one call per spoke's lifetime, never
   * on later calls (the flag is read with the owner row, once per instance). A spoke used before the
   * index existed is named at its next use.
   */
  async bind(call: OwnerKey): Promise<void> {
    const { owner, env } = this.spoke;
    owner.bind(call);
    if (owner.indexed()) return;
    await artifactsStub(env, call.tenantId, call.userId).noteObject("spoke", call.appId);
    owner.markIndexed();
  }

  // --- personal tokens (personal-token.ts): this user's own token for a `user_token` app ---

  /**
   * The user's personal token for the app's server: set, dropped, or whether it is set (never
   * read back). "not_found" when the app does not serve or takes no personal token.
   */
  async personalTokenSlot(owner: OwnerKey, change: PersonalTokenChange): Promise<PersonalTokenSlot> {
    const { ctx, env } = this.spoke;
    const app = await servingApp(env, owner.tenantId, owner.appId);
    const mcp = app?.manifest.mcp;
    // A read of a spoke never used makes none (My data lists every app's slot): nothing is set there.
    if (!change && !this.spoke.owner.stored())
      return mcp?.auth.type === "user_token" ? { ok: true, setAt: null } : { ok: false, code: "not_found" };
    // Indexed like a first call: a token set before any call is still found by export and erasure.
    await this.bind(owner);
    const slot = this.personalToken(owner);
    if (mcp?.auth.type !== "user_token") {
      // An app that no longer serves (or changed kind) keeps no token of its users: dropping still works.
      if (change && "drop" in change && slot.forgetAll()) return { ok: true, setAt: null };
      return { ok: false, code: "not_found" };
    }
    if (change && "set" in change) {
      await slot.set(mcp.url, change.set);
      ctx.waitUntil(
        writeAudit(env, owner.tenantId, "personal_token_set", {
          appId: owner.appId,
          userId: owner.userId,
        }),
      );
    } else if (change) {
      if (!slot.forget(mcp.url)) return { ok: false, code: "not_found" };
      ctx.waitUntil(
        writeAudit(env, owner.tenantId, "personal_token_dropped", {
          appId: owner.appId,
          userId: owner.userId,
        }),
      );
      return { ok: true, setAt: null };
    }
    return { ok: true, setAt: slot.setAt(mcp.url) };
  }

  personalToken(owner: OwnerKey): PersonalToken {
    const secret = this.spoke.env.LATTICE_KEY_SECRET;
    if (!secret) throw new Error("personal tokens need LATTICE_KEY_SECRET to seal them");
    return new PersonalToken(this.spoke.sql, secret, owner);
  }

  // --- export and erasure: called by the user-data routes, never on a call's path ---

  /**
   * The app's memory of this user as stored and the OAuth connections (never their tokens); memory
   * oldest first up to `maxBytes` of JSON (the export's budget left), the rest left out.
   */
  async exportData(maxBytes: number): Promise<SpokeExport | null> {
    const { sql, env } = this.spoke;
    this.spoke.flushMemory();
    const owner = this.spoke.owner.stored();
    if (!owner) return null;
    type Row = {
      functionality: string;
      request: string;
      response: string | null;
      outcome: string;
      at: string;
      levels: string | null;
    };
    const secret = env.LATTICE_KEY_SECRET;
    const connections = secret ? new UserOAuth(sql, secret, ownerOf(owner)).connections() : [];
    const target = connections.length ? await oauthTargetOf(env, owner.tenant_id, owner.app_id) : null;
    const oauth = connections.map((c) => ({ ...c, scope: target?.auth.scope ?? null }));
    const personalTokens = secret ? this.personalToken(ownerOf(owner)).list() : [];
    // The app and its connections are small and always named; memory fills what budget is left.
    let bytes = jsonBytes({ appId: owner.app_id, memoryTruncated: false, memory: [], oauth, personalTokens });
    let memoryTruncated = false;
    const memory: SpokeExport["memory"] = [];
    // At most what a spoke keeps (memory.ts: KEPT_INTERACTIONS), each decoded and measured in turn.
    // The levels go along: the route withholds from a user token what is above the display cap.
    for (const row of sql<Row>`SELECT functionality, request, response, outcome, at, levels
      FROM interactions ORDER BY seq`) {
      const remembered = {
        functionality: row.functionality,
        request: decode(Json, row.request, "a remembered request"),
        response: row.response === null ? null : decode(Json, row.response, "a remembered answer"),
        outcome: row.outcome,
        at: row.at,
        levels: row.levels === null ? null : decode(Levels, row.levels, "a remembered label"),
      };
      const size = jsonBytes(remembered) + 1; // and its comma
      if (bytes + size > maxBytes) {
        memoryTruncated = true;
        break;
      }
      bytes += size;
      memory.push(remembered);
    }
    return { appId: owner.app_id, memoryTruncated, memory, oauth, personalTokens };
  }

  /**
   * Erases what this spoke holds of its user: OAuth tokens revoked at their server where it names
   * where (best effort, bounded in time) and dropped, pending sign-ins, memory, and the owner row (a
   * later use binds afresh). A spoke never used, or erased already, counts nothing.
   */
  async erase(): Promise<SpokeErased> {
    const { sql, env } = this.spoke;
    this.spoke.flushMemory();
    const owner = this.spoke.owner.stored();
    if (!owner)
      return { appId: null, interactions: 0, oauthTokens: 0, personalTokens: 0, revocation: "none" };
    const secret = env.LATTICE_KEY_SECRET;
    let oauth: { tokens: number; revocation: Revocation } = { tokens: 0, revocation: "none" };
    if (secret) {
      const target = await oauthTargetOf(env, owner.tenant_id, owner.app_id).catch(() => null);
      oauth = await new UserOAuth(sql, secret, ownerOf(owner)).erase(target);
    } else {
      sql`DELETE FROM oauth_tokens`;
      sql`DELETE FROM oauth_pending`;
    }
    const interactions = sql<{ n: number }>`SELECT COUNT(*) AS n FROM interactions`[0]!.n;
    sql`DELETE FROM interactions`;
    // Personal tokens have no revocation endpoint to call: the user revokes them where they made them.
    const personalTokens = sql<{ n: number }>`SELECT COUNT(*) AS n FROM personal_tokens`[0]!.n;
    sql`DELETE FROM personal_tokens`;
    this.spoke.owner.forget();
    this.spoke.erased();
    return {
      appId: owner.app_id,
      interactions,
      oauthTokens: oauth.tokens,
      personalTokens,
      revocation: oauth.revocation,
    };
  }
}
