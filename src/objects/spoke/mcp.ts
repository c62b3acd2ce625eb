import type { Functionality } from "../../apps/manifest.ts";
import type { AuditType } from "../../audit-types.ts";
import type { ServingApp, SpokeErrorCode } from "../../contracts.ts";
import { appAuthHeaders, forgetAppToken, secretBinding, tokenFetch } from "../../mcp/auth.ts";
import {
  connectMcp,
  type McpConnection,
  McpFailure,
  type McpLimits,
  type McpProgress,
} from "../../mcp/connection.ts";
import { pinsOf, toolChanges } from "../../mcp/definitions.ts";
import { toolOutcome } from "../../mcp/results.ts";
import type { Rpc } from "../rpc.ts";

/**
 * A spoke's call to an MCP app's tool: the pin check, then the call. The spoke compares the
 * server's tool list with the serving version's pins in each new session and again after
 * `PIN_RECHECK_MS`; any difference refuses the call and hands the new list to the tenant, which
 * stops the app and files it for review. Pinning can be switched off only by a bench or test
 * control (`checkPins: false`).
 */

export const PIN_RECHECK_MS = 60_000;

/** When this spoke last found the server's tools matching a version's pins, and in which session. */
export interface PinCheck {
  version: number;
  sessionId: string | undefined;
  at: number;
}

/** What an MCP call asks of its tenant: the server's secret (from the replica) and a drift report. */
export interface TenantPort {
  appCredential(appId: string, boundTo: string): Promise<string | null>;
  recordToolDrift: Rpc<ObjectOf<Env["TENANT"]>>["recordToolDrift"];
}
/** The spoke's audit (batched, audit-sink.ts): it never blocks or fails. */
type Audit = (type: AuditType, detail: Record<string, unknown>) => void;
type ObjectOf<N> = N extends DurableObjectNamespace<infer T> ? T : never;

export interface ToolCall {
  app: ServingApp;
  fn: Functionality & { tool: NonNullable<Functionality["tool"]> };
  args: Record<string, unknown>;
  sessionId: string | undefined;
  limits: McpLimits;
  checkPins: boolean;
  /** The user's own token when the app's auth is `oauth` or `user_token` (the spoke's own store). */
  userToken?: string;
  /** Told the server's progress on the call (its numbers) as it arrives. */
  onProgress?: (progress: McpProgress) => void;
  /** The app-call span's W3C context, sent on each of the conversation's requests (docs/traces.md). */
  traceparent?: string;
}

export type ToolCallResult =
  | { ok: true; value: unknown; pinCheck: PinCheck | null }
  | { ok: false; code: SpokeErrorCode; message: string; problems?: string[] };

export async function callMcpTool(
  call: ToolCall,
  tenant: TenantPort,
  lastCheck: PinCheck | null,
  audit: Audit,
): Promise<ToolCallResult> {
  const mcp = call.app.manifest.mcp;
  if (!mcp) return { ok: false, code: "app_unavailable", message: "the app has no MCP server" };
  const boundTo = secretBinding(mcp.auth, mcp.url);
  const secret = boundTo ? await tenant.appCredential(call.app.appId, boundTo) : null;
  const tokenUrls = mcp.auth.type === "client_credentials" ? [mcp.auth.tokenUrl] : [];
  const perUser = mcp.auth.type === "oauth" || mcp.auth.type === "user_token";
  const auth = perUser
    ? call.userToken
      ? { ok: true as const, headers: { Authorization: `Bearer ${call.userToken}` } }
      : {
          ok: false as const,
          message:
            mcp.auth.type === "oauth"
              ? "the user has not authorized this app yet"
              : "the user has not set a personal token for this app yet",
        }
    : await appAuthHeaders(mcp.auth, secret, tokenFetch(tokenUrls, call.limits.timeoutMs));
  if (!auth.ok) {
    const code = perUser ? "authorization_required" : "app_error";
    return { ok: false, code, message: auth.message };
  }

  let connection: McpConnection | undefined;
  try {
    const headers = call.traceparent ? { ...auth.headers, traceparent: call.traceparent } : auth.headers;
    connection = await connectMcp(mcp.url, headers, call.limits);
    const due =
      call.checkPins &&
      (!lastCheck ||
        lastCheck.version !== call.app.version ||
        lastCheck.sessionId !== call.sessionId ||
        Date.now() - lastCheck.at > PIN_RECHECK_MS);
    let pinCheck: PinCheck | null = due ? null : lastCheck;
    if (due) {
      const current = await connection.listTools();
      const pins = await pinsOf(current);
      if (!samePins(pins, call.app.pins ?? {})) {
        const changes = toolChanges(mcp.definitions ?? [], current);
        await tenant.recordToolDrift(call.app.appId, call.app.version, changes, current);
        return {
          ok: false,
          code: "tool_drift",
          message: `the app's MCP server changed its tools since version ${call.app.version} was approved; calls stop until an admin reviews the change`,
        };
      }
      pinCheck = { version: call.app.version, sessionId: call.sessionId, at: Date.now() };
    }
    const result = await withRetry(call, () =>
      connection!.callTool(call.fn.tool.name, call.args, call.onProgress),
    );
    const outcome = toolOutcome(call.fn, result);
    if (!outcome.ok) {
      audit("mcp_tool_failed", {
        appId: call.app.appId,
        tool: call.fn.tool.name,
        code: outcome.code,
      });
      return outcome;
    }
    return { ok: true, value: outcome.value, pinCheck };
  } catch (error) {
    if (error instanceof McpFailure && error.code === "authorization_required")
      forgetAppToken(mcp.auth, secret);
    if (error instanceof McpFailure) return { ok: false, code: error.code, message: error.message };
    throw error;
  } finally {
    await connection?.close();
  }
}

/** A call that timed out is sent once more only when the server declared the tool idempotent. */
async function withRetry(call: ToolCall, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpFailure && error.code === "app_timeout" && call.fn.tool.idempotent) return run();
    throw error;
  }
}

function samePins(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
