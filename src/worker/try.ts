import type { CatalogEntry } from "../apps/catalog.ts";
import type { ServingApp, SpokeErrorCode, SpokeTryReport } from "../contracts.ts";
import { highest, type Policy, policyLattices } from "../policy/index.ts";
import { answerLabel } from "../runtime/index.ts";
import type { TryOutcome, TryResult } from "./schemas/try.ts";

/**
 * What a developer's try-it call is judged as (routes/apps.ts): each stage of the spoke's pipeline
 * (the request's schema, egress, the answer's schema) passed, failed or never reached, and the
 * label a plan step's answer would carry. Lattice's own words only: the app's stay in `answer`.
 */

/** Codes a call stops at before its request is checked (the version, the quota, the functionality). */
const BEFORE_REQUEST: ReadonlySet<SpokeErrorCode> = new Set([
  "app_unavailable",
  "app_changed",
  "unknown_functionality",
  "quota_exceeded",
  "tool_drift",
]);

const MESSAGES: Record<TryOutcome, string> = {
  ok: "the app answered, and its answer matches the declared schema",
  app_unavailable: "the app version cannot be called",
  app_changed: "the app version changed while the call was prepared",
  unknown_functionality: "the version has no such functionality",
  invalid_request: "the input does not match the functionality's request schema; nothing was sent",
  invalid_response: "the app's answer does not match the functionality's response schema",
  egress_refused: "the app's URL is refused by the egress guard; nothing was sent",
  app_timeout: "the app did not answer within the tenant's app timeout",
  app_error: "the app failed or answered with an HTTP status other than 200",
  app_response_too_large: "the app's answer exceeds the response size limit",
  app_response_not_json: "the app's answer is not JSON",
  agent_not_configured: "the app's agent has no model configured in this tenant",
  agent_time_limit: "the app's agent ran past its time limit",
  agent_token_limit: "the app's agent ran past its token limit",
  agent_turn_limit: "the app's agent ran past its turn limit",
  agent_too_many_calls: "the app's agent made too many tool calls",
  visor_refused: "the visor refused a call of the app's agent",
  model_timeout: "the model did not answer in time",
  model_failed: "the model call failed",
  model_not_configured: "no model is configured for the app's agent",
  quota_exceeded: "the tenant's daily app-call quota is used up",
  tool_drift: "the MCP server's tools differ from the version's pins",
  tool_error: "the MCP tool reported an error",
  authorization_required: "the app asks for an authorization the try-it user does not have",
};

export function judged(input: {
  app: ServingApp;
  status: "pending" | "approved";
  functionality: string;
  user: string;
  report: SpokeTryReport;
  policy: Policy;
  catalog: readonly CatalogEntry[];
}): TryResult {
  const { app, report } = input;
  const { result } = report;
  const code: TryOutcome = result.ok ? "ok" : result.code;
  const problems = result.ok ? undefined : result.problems;
  const before =
    !result.ok &&
    (BEFORE_REQUEST.has(result.code) || (result.code === "authorization_required" && !report.request));
  const notReached = { verdict: "not_reached" as const };
  const passed = { verdict: "passed" as const };

  const inputVerdict = before
    ? notReached
    : code === "invalid_request"
      ? { verdict: "failed" as const, ...(problems && { problems }) }
      : passed;
  const egress =
    before || code === "invalid_request"
      ? notReached
      : code === "egress_refused" && !result.ok
        ? { verdict: "failed" as const, reason: result.message }
        : passed;
  const output =
    code === "ok"
      ? passed
      : code === "invalid_response"
        ? { verdict: "failed" as const, ...(problems && { problems }) }
        : code === "app_response_not_json" || code === "app_response_too_large"
          ? { verdict: "failed" as const, reason: MESSAGES[code] }
          : notReached;

  return {
    appId: app.appId,
    version: app.version,
    status: input.status,
    functionality: input.functionality,
    user: input.user,
    outcome: code,
    message: MESSAGES[code],
    request: report.request,
    answer: report.answer,
    judgement: {
      input: inputVerdict,
      egress,
      output,
      labels: labelsOf(input),
      durationMs: report.durationMs,
    },
  };
}

/**
 * The label a plan step's answer from this call carries: the bound entry's level raised by the
 * app's own declaration (as planning binds it, runtime/snapshot.ts), never more trusted than the
 * entry says, and lowered or raised by what an agent read (answerLabel). Unbound (a pending
 * version): the app's declaration, untrusted.
 */
function labelsOf(input: Parameters<typeof judged>[0]): TryResult["judgement"]["labels"] {
  const l = policyLattices(input.policy);
  const conf = l.confidentiality;
  const fn = input.app.manifest.functionalities.find((f) => f.name === input.functionality);
  const boundTo = input.app.bindings[input.functionality] ?? null;
  const entry = boundTo ? input.catalog.find((e) => e.name === boundTo) : undefined;
  const declared = fn?.output.confidentiality ?? conf.top;
  const computed = {
    confidentiality: entry ? highest(conf, [entry.output.confidentiality, declared], conf.top) : declared,
    integrity: entry?.output.integrity ?? l.integrity.bottom,
  };
  const { result } = input.report;
  const label = result.ok ? answerLabel(l, computed, result, true).final : computed;
  return { ...label, boundTo: entry ? boundTo : null };
}
