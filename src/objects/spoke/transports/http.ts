import { DEFAULT_LIMITS, postSigned } from "../endpoint.ts";
import { type TransportFactory, undelivered } from "./transport.ts";

/** A functionality of the app's endpoint: a signed POST (endpoint.ts), its answer checked by the pipeline. */
export const httpTransport: TransportFactory = (spoke, call, app, fn) => ({
  target: app.manifest.endpoint,
  checksResponse: true,
  async call() {
    const send = () =>
      postSigned(
        `${(app.manifest.endpoint ?? "").replace(/\/+$/, "")}/${fn.name}`,
        JSON.stringify(call.request),
        {
          secrets: app.secrets,
          idempotencyKey: call.idempotencyKey,
          callId: call.callId,
          ...(call.traceparent && { traceparent: call.traceparent }),
        },
        { ...DEFAULT_LIMITS, ...call.limits },
        spoke.observe,
      );
    let result = await send();
    // No answer at all (a kept-alive connection the app's server closed as it was reused: a burst
    // lost 12 of 256 calls so): a reversible call goes once more with the same idempotency key, as
    // a replay would send it. An irreversible one never does: only the app can say whether it ran.
    if (!result.ok && result.unanswered && !fn.irreversible) result = await send();
    if (result.ok) return { ok: true, value: result.value };
    return undelivered(result.code, result.message, result.status ? { status: result.status } : undefined);
  },
});
