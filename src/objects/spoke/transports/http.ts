import { DEFAULT_LIMITS, postSigned } from "../endpoint.ts";
import { type TransportFactory, undelivered } from "./transport.ts";

/** A functionality of the app's endpoint: a signed POST (endpoint.ts), its answer checked by the pipeline. */
export const httpTransport: TransportFactory = (_spoke, call, app, fn) => ({
  target: app.manifest.endpoint,
  checksResponse: true,
  async call() {
    const result = await postSigned(
      `${(app.manifest.endpoint ?? "").replace(/\/+$/, "")}/${fn.name}`,
      JSON.stringify(call.request),
      { secrets: app.secrets, idempotencyKey: call.idempotencyKey, callId: call.callId },
      { ...DEFAULT_LIMITS, ...call.limits },
    );
    if (result.ok) return { ok: true, value: result.value };
    return undelivered(result.code, result.message, result.status ? { status: result.status } : undefined);
  },
});
