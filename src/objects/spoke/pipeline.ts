import { endpointProblem, modeOf } from "../../apps/egress.ts";
import { schemaViolations } from "../../apps/schemas.ts";
import type { AuditType } from "../../audit-types.ts";
import type { ServingApp, SpokeCall, SpokeErrorCode, SpokeResult } from "../../contracts.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import { beginAppCall } from "../tenant-replica/index.ts";
import { agentTransport } from "./transports/agent.ts";
import { httpTransport } from "./transports/http.ts";
import { mcpTransport } from "./transports/mcp.ts";
import {
  type Delivery,
  type SpokeContext,
  type TransportFactory,
  type TransportKind,
  transportKind,
} from "./transports/transport.ts";

/**
 * An app call, the same stages for every transport: begin (the serving version and the day's
 * quota), the request against its schema, egress, the transport's call, the answer against its
 * schema, audit, memory. Only the transport differs, chosen once from the manifest. Memory comes
 * last: it is written behind the reply (write-behind.ts), and an awaited audit after it would let
 * the write land before the reply leaves.
 */

const TRANSPORTS: Record<TransportKind, TransportFactory> = {
  http: httpTransport,
  mcp: mcpTransport,
  agent: agentTransport,
};

/** Keeps an interaction in the app's memory of this user (write-behind, after the reply). */
export type Remember = (response: unknown, outcome: string, held?: string[]) => void;

/**
 * Which version the call goes to, with one of today's app calls spent: a plan step's, the serving
 * version (beginAppCall); a developer's try-it call, the version it names (try.ts), so the serving
 * check of real queries stays as strict as it is.
 */
export type Begin = () => Promise<Ok<{ app: ServingApp }> | Failure<SpokeErrorCode>>;

export async function callApp(
  call: SpokeCall,
  spoke: SpokeContext,
  remember: Remember,
  begin: Begin = () =>
    beginAppCall(spoke.env, call.tenantId, {
      appId: call.appId,
      functionality: call.functionality,
      version: call.appVersion,
    }),
): Promise<SpokeResult> {
  const audit = (type: AuditType, detail: Record<string, unknown>) =>
    spoke.audit(type, {
      appId: call.appId,
      functionality: call.functionality,
      callId: call.callId,
      ...detail,
    });

  // From this isolate's replica of the tenant: the serving version, the functionality, the quota.
  const begun = await begin();
  if (!begun.ok) return failure(begun.code, begun.message);
  const { app } = begun;
  const fn = app.manifest.functionalities.find((f) => f.name === call.functionality)!;

  // Problems are named by places in the declared schema: the request may carry other apps' data.
  const requestProblems = schemaViolations(fn.request, call.request);
  if (requestProblems.length) {
    audit("malformed_app_request", { problems: requestProblems });
    const message = "the request does not match the functionality's schema";
    return withProblems("invalid_request", message, requestProblems);
  }

  const transport = TRANSPORTS[transportKind(app.manifest, fn)](spoke, call, app, fn);
  const target = transport.target;
  const egress =
    target === undefined ? "the app names no URL for it" : endpointProblem(target, modeOf(spoke.env));
  if (egress) {
    audit("egress_refused", { endpoint: target, reason: egress });
    return failure("egress_refused", egress);
  }

  const delivered = await transport.call();

  const responseProblems =
    delivered.ok && transport.checksResponse ? schemaViolations(fn.response, delivered.value) : [];
  if (responseProblems.length) {
    audit("malformed_app_response", { problems: responseProblems });
    remember(null, "invalid_response");
    const message = "the app's answer does not match its declared schema";
    return withProblems("invalid_response", message, responseProblems);
  }

  const agent = delivered.ok ? delivered.agent : delivered.details?.agent;
  for (const event of agent?.events ?? []) {
    // The rule that fired, not the values: the log outlives the session (private ones too).
    if (event.type === "visor_exception")
      audit("visor_exception", { tool: event.tool, exception: { type: event.exception?.type } });
  }
  // An agent's failure is its loop's (a limit, a refusal: audited above or in the hub's trace), not
  // the app's; one refused before anything was sent reached nobody.
  if (!delivered.ok && !agent && !delivered.details?.unsent) {
    // The code and status only: the rest of an app's failure is its own (or its network's) words.
    const status = delivered.details?.status;
    audit("app_call_failed", { code: delivered.code, ...(status && { status }) });
  }

  if (delivered.ok || !delivered.details?.unsent)
    remember(delivered.ok ? delivered.value : null, delivered.ok ? "ok" : delivered.code, agent?.held);
  return reply(delivered, app.version);
}

/** The delivery as the hub reads it (SpokeResult). */
function reply(delivered: Delivery, appVersion: number): SpokeResult {
  if (delivered.ok) {
    const { value, agent } = delivered;
    if (!agent) return { ok: true, value, appVersion };
    const { readUntrusted, relayed, remembered, events } = agent;
    return { ok: true, value, appVersion, readUntrusted, relayed, remembered, events };
  }
  const { problems, agent } = delivered.details ?? {};
  return {
    ...failure(delivered.code, delivered.message),
    ...(problems && { problems }),
    ...(agent && { events: agent.events, ...(agent.rule && { rule: agent.rule }) }),
  };
}

function withProblems(code: SpokeErrorCode, message: string, problems: string[]): SpokeResult {
  return { ...failure(code, message), problems };
}
