import { MCP_LIMITS } from "../../../mcp/connection.ts";
import { hubStub } from "../../stubs.ts";
import { DEFAULT_LIMITS } from "../endpoint.ts";
import { callMcpTool } from "../mcp.ts";
import { progressRelay } from "../progress.ts";
import { oauthTargetFor } from "../user-oauth.ts";
import { type TransportFactory, undelivered } from "./transport.ts";

/** An MCP server's tool (mcp.ts): pins, call, result checks, with the user's token where the app asks for one. */
export const mcpTransport: TransportFactory = (spoke, call, app, fn) => ({
  target: app.manifest.mcp?.url,
  checksResponse: false,
  async call() {
    const tool = fn.tool;
    if (!tool) throw new Error("an MCP call for a functionality that is no tool");
    const limits = {
      timeoutMs: call.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      maxResponseBytes: Math.max(
        call.limits?.maxResponseBytes ?? MCP_LIMITS.maxResponseBytes,
        MCP_LIMITS.maxResponseBytes,
      ),
    };
    // The app in hand: its OAuth settings need no second trip to the tenant.
    const oauthTarget = await oauthTargetFor(spoke.env, call.tenantId, app);
    // A personal token is looked up by the URL this call goes to: one given for another server stays put.
    const personal = app.manifest.mcp?.auth.type === "user_token" ? app.manifest.mcp.url : null;
    const userToken = oauthTarget
      ? await spoke.oauth().accessToken(oauthTarget)
      : personal
        ? await spoke.personalToken().token(personal)
        : undefined;
    // The server's progress goes to the hub that asked, under this call's id, while the call runs.
    const sid = call.sessionId;
    // A try-it call is shown the tool call it makes (the MCP session around it is the SDK's).
    spoke.observe?.sent({
      method: "POST",
      url: app.manifest.mcp?.url ?? "",
      headers: {
        "Content-Type": "application/json",
        ...(userToken && { Authorization: "Bearer [redacted]" }),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "tools/call",
        params: { name: tool.name, arguments: call.request },
      }),
    });
    const relay = sid
      ? progressRelay((p) => hubStub(spoke.env, call.tenantId, sid).stepProgress(call.callId, p))
      : null;
    const result = await callMcpTool(
      {
        app,
        fn: { ...fn, tool },
        args: call.request as Record<string, unknown>,
        sessionId: call.sessionId,
        limits,
        checkPins: call.checkPins !== false,
        ...(userToken && { userToken }),
        ...(relay && { onProgress: relay.report }),
        ...(call.traceparent && { traceparent: call.traceparent }),
      },
      spoke.tenant,
      spoke.pins.last(),
      spoke.audit,
    ).finally(() => relay?.end());
    if (!result.ok) {
      // A token the server no longer takes: dropped, so the next query asks the user to sign in again.
      if (result.code === "authorization_required" && oauthTarget && userToken)
        spoke.oauth().forget(oauthTarget);
      if (result.code === "authorization_required" && personal && userToken)
        spoke.personalToken().forget(personal);
      return undelivered(result.code, result.message, result.problems && { problems: result.problems });
    }
    spoke.pins.checked(result.pinCheck);
    return { ok: true, value: result.value };
  },
});
