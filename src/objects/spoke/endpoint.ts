import { readBounded } from "../../bounded-body.ts";
import { Lru } from "../../lru.ts";
import { hex } from "../crypto.ts";

/** The HTTP side of a spoke: a signed POST to the app with a timeout and a response size limit. */

export interface EndpointLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

export const DEFAULT_LIMITS: EndpointLimits = { timeoutMs: 10_000, maxResponseBytes: 256 * 1024 };

export type EndpointResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      code: "app_timeout" | "app_error" | "app_response_too_large" | "app_response_not_json";
      message: string;
      /** The HTTP status of an answer other than 200. */
      status?: number;
      /** No answer came at all: the connection failed before one (not a timeout). */
      unanswered?: true;
    };

/**
 * What a developer's try-it call shows of the exchange (objects/spoke/try.ts): the request as it
 * left and the answer as it came, bounded. A plan step's call has no observer and pays nothing.
 */
export interface CallObserver {
  sent(request: { method: string; url: string; headers: Record<string, string>; body: string }): void;
  answered(answer: { status: number; body: string; truncated: boolean }): void;
}

/** How much of an answer's body an observer is shown (the call's own limit still applies to parsing). */
export const OBSERVED_BODY_CHARS = 16 * 1024;

/** What a call to an app is signed over (API.md, "What apps receive"): everything that decides what it does. */
export interface SignedCall {
  method: string;
  path: string;
  idempotencyKey: string;
  callId: string;
  body: string;
}

/**
 * `t=<unix>,v2=<hex HMAC-SHA256(secret, canonical)>`, one `v2` per valid secret (two while a
 * rotation overlaps), where canonical is `lattice-v2`, t, method, path, idempotency key, call id
 * and body, joined by newlines. A captured call cannot be replayed to another path, or with
 * another key or call id, within the window.
 */
export async function signatureHeader(
  secrets: readonly string[],
  call: SignedCall,
  unixSeconds: number,
): Promise<string> {
  const canonical = [
    "lattice-v2",
    unixSeconds,
    call.method.toUpperCase(),
    call.path,
    call.idempotencyKey,
    call.callId,
    call.body,
  ].join("\n");
  const macs = await Promise.all(
    secrets.map(async (secret) => {
      const key = await signingKey(secret);
      return `v2=${hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(canonical))))}`;
    }),
  );
  return [`t=${unixSeconds}`, ...macs].join(",");
}

/**
 * An app secret's HMAC key, imported once per isolate: every call signs, and the import was about
 * half of signing's sampled CPU (`bench:profile`). Non-extractable; the 64 most recently used are
 * kept, so a rotated secret drops out. A failed import is not kept: the next call tries again.
 */
function signingKey(secret: string): Promise<CryptoKey> {
  let key = signingKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    key.catch(() => signingKeys.delete(secret));
    signingKeys.set(secret, key);
  }
  return key;
}

const signingKeys = new Lru<string, Promise<CryptoKey>>(64);

/** A signed POST of `body` to `url`: the signature, idempotency key and call id as headers. */
export async function postSigned(
  url: string,
  body: string,
  call: { secrets: readonly string[]; idempotencyKey: string; callId: string; traceparent?: string },
  limits: EndpointLimits,
  observer?: CallObserver,
): Promise<EndpointResult> {
  const path = new URL(url).pathname;
  const signed = { method: "POST", path, idempotencyKey: call.idempotencyKey, callId: call.callId, body };
  return postToApp(
    url,
    body,
    {
      "X-Lattice-Signature": await signatureHeader(call.secrets, signed, Math.floor(Date.now() / 1000)),
      "X-Lattice-Idempotency-Key": call.idempotencyKey,
      "X-Lattice-Call": call.callId,
      // Unsigned: it decides nothing the app does, only where the app's own spans hang (docs/traces.md).
      ...(call.traceparent && { traceparent: call.traceparent }),
    },
    limits,
    observer,
  );
}

export async function postToApp(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: EndpointLimits,
  observer?: CallObserver,
): Promise<EndpointResult> {
  let response: Response;
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const sentHeaders = { "Content-Type": "application/json", ...headers };
  observer?.sent({ method: "POST", url, headers: sentHeaders, body });
  try {
    response = await fetch(url, {
      method: "POST",
      body,
      headers: sentHeaders,
      redirect: "manual", // a redirect could leave the approved endpoint
      signal,
    });
  } catch (error) {
    return signal.aborted
      ? { ok: false, code: "app_timeout", message: `the app did not answer within ${limits.timeoutMs} ms` }
      : {
          ok: false,
          code: "app_error",
          message: `the app could not be reached: ${describe(error)}`,
          unanswered: true,
        };
  }
  if (response.status !== 200) {
    if (observer) await observeRefusal(response, limits, signal, observer);
    else await response.body?.cancel();
    return {
      ok: false,
      code: "app_error",
      message: `the app answered HTTP ${response.status}`,
      status: response.status,
    };
  }
  const text = await readLimited(response, limits.maxResponseBytes, signal);
  observer?.answered(observed(200, text));
  if (text === "too_large") {
    return {
      ok: false,
      code: "app_response_too_large",
      message: `the app's answer exceeds ${limits.maxResponseBytes} bytes`,
    };
  }
  if (text === "timeout") {
    return {
      ok: false,
      code: "app_timeout",
      message: `the app did not finish within ${limits.timeoutMs} ms`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, code: "app_response_not_json", message: "the app's answer is not JSON" };
  }
}

/** An answer other than 200, for an observer: its body read within the same bounds, then shown cut. */
async function observeRefusal(
  response: Response,
  limits: EndpointLimits,
  signal: AbortSignal,
  observer: CallObserver,
): Promise<void> {
  // The refusal's body is only shown: a failure reading it changes nothing about the call's outcome.
  const text = await readLimited(
    response,
    Math.min(limits.maxResponseBytes, OBSERVED_BODY_CHARS),
    signal,
  ).catch(() => "timeout" as const);
  observer.answered(observed(response.status, text));
}

function observed(status: number, text: string): { status: number; body: string; truncated: boolean } {
  if (text === "too_large" || text === "timeout") return { status, body: "", truncated: true };
  const truncated = text.length > OBSERVED_BODY_CHARS;
  return { status, body: truncated ? text.slice(0, OBSERVED_BODY_CHARS) : text, truncated };
}

/** Reads at most `max` bytes (readBounded); a read cut short by the deadline is a timeout. */
async function readLimited(response: Response, max: number, signal: AbortSignal): Promise<string> {
  try {
    return await readBounded(response, max);
  } catch (error) {
    if (signal.aborted) return "timeout";
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
