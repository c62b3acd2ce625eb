import type { ServingApp, SpokeCall, SpokeErrorCode, SpokeTryReport } from "../../contracts.ts";
import { failure } from "../../result.ts";
import { spend } from "../tenant-replica/index.ts";
import { type CallObserver, OBSERVED_BODY_CHARS } from "./endpoint.ts";
import { callApp } from "./pipeline.ts";
import type { SpokeContext } from "./transports/transport.ts";

/**
 * A developer's try-it call (POST /v1/apps/{id}/versions/{v}/try): the version the developer names,
 * pending or approved, called through the same pipeline as a plan step's call (schemas both ways,
 * egress, signing, timeouts, quota, audit), by a spoke whose user is synthetic (names.ts: no real
 * user can bear its id), so no real user's memory, tokens or artifacts are within its reach. It
 * leaves no memory: every try starts from the same empty spoke.
 */

/** Headers whose values are credentials: shown by name only. The signature is an HMAC, not a secret. */
const SECRET_HEADERS = new Set(["authorization", "cookie", "proxy-authorization", "x-api-key"]);

export async function tryCall(
  call: SpokeCall,
  app: ServingApp,
  spoke: Omit<SpokeContext, "observe">,
): Promise<SpokeTryReport> {
  let request: SpokeTryReport["request"] = null;
  let answer: SpokeTryReport["answer"] = null;
  const observe: CallObserver = {
    sent: (sent) => {
      request = { ...sent, headers: redacted(sent.headers) };
    },
    answered: (got) => {
      answer = got;
    },
  };
  const started = Date.now();
  const result = await callApp(
    call,
    { ...spoke, observe },
    () => {},
    async () => {
      const fn = app.manifest.functionalities.find((f) => f.name === call.functionality);
      if (!fn) return failure("unknown_functionality", `no functionality ${call.functionality}`);
      if (fn.tool && app.manifest.mcp?.auth.type === "oauth") return noConnection();
      // A try is an app call like any other: it spends one of the tenant's app calls for today.
      const quota = await spend(spoke.env, call.tenantId, "app_calls");
      if (!quota.ok) return failure("quota_exceeded", quota.message);
      return { ok: true, app };
    },
  );
  // A transport that shows no raw answer (an MCP tool, an agent) is shown the value it gave.
  if (!answer && result.ok) answer = shownValue(result.value);
  return { result, request, answer, durationMs: Date.now() - started };
}

function noConnection() {
  return failure(
    "authorization_required" satisfies SpokeErrorCode,
    "this app signs each user in with OAuth; the try-it user has no connection to it, so it cannot be tried here",
  );
}

function redacted(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SECRET_HEADERS.has(name.toLowerCase()) ? "[redacted]" : value,
    ]),
  );
}

function shownValue(value: unknown): NonNullable<SpokeTryReport["answer"]> {
  const body = JSON.stringify(value) ?? "";
  const truncated = body.length > OBSERVED_BODY_CHARS;
  return { status: 200, body: truncated ? body.slice(0, OBSERVED_BODY_CHARS) : body, truncated };
}
