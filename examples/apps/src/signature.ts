/**
 * Checking that a call really comes from Lattice. Copy this file into your app; it needs only WebCrypto.
 *
 * Lattice signs every call it makes to your endpoint with the per-app secret it showed you once at
 * registration (scheme v2):
 *
 *   X-Lattice-Signature: t=<unix seconds>,v2=<hex HMAC-SHA256(secret, canonical)>[,v2=…]
 *   canonical = "lattice-v2\n" + t + "\n" + METHOD + "\n" + path + "\n" + X-Lattice-Idempotency-Key
 *               + "\n" + X-Lattice-Call + "\n" + raw body
 *
 * `path` is the request URL's path as your server received it (no query). Verify over the raw body
 * exactly as received (read it with `await request.text()` before parsing JSON: re-serialising
 * changes bytes and breaks the signature), and reject the call with 401 unless this returns
 * `{ ok: true }`. Everything that decides what the call does is signed: a captured `quote` cannot
 * be replayed to `/book`, nor with another idempotency key. The timestamp bounds how long a
 * captured request can be replayed as it is; within that window, de-duplicate on
 * `X-Lattice-Idempotency-Key` (Lattice reuses it when it retries a call). While a secret rotation
 * overlaps, the header carries one `v2` per valid secret: any one that verifies is enough.
 */

/** How far (seconds) the signed timestamp may be from our clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** The parts of a request the signature covers, as your server received them. */
export interface SignedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  callId: string | null;
  body: string;
}

const encoder = new TextEncoder();

function canonical(t: number, r: SignedRequest): Uint8Array<ArrayBuffer> {
  const parts = [
    "lattice-v2",
    t,
    r.method.toUpperCase(),
    r.path,
    r.idempotencyKey ?? "",
    r.callId ?? "",
    r.body,
  ];
  return new Uint8Array(encoder.encode(parts.join("\n")));
}

/** The secret's UTF-8 bytes are the HMAC key. */
function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Parses `t=…,v2=…`. Several `v2` are allowed (a rotation signs with the old and the new secret). */
function parseHeader(header: string): { t: number; v2: string[] } | null {
  let t: number | null = null;
  const v2: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === "v2" && /^[0-9a-fA-F]{64}$/.test(value)) v2.push(value);
  }
  return t === null || v2.length === 0 ? null : { t, v2 };
}

/**
 * Verifies an `X-Lattice-Signature` header against the request as received.
 * `opts.now` (unix seconds) is for tests; `opts.toleranceSeconds` defaults to 300.
 */
export async function verifyLatticeSignature(
  secret: string,
  header: string | null,
  request: SignedRequest,
  opts: { now?: number; toleranceSeconds?: number } = {},
): Promise<SignatureCheck> {
  if (!secret) return { ok: false, reason: "no secret configured" };
  if (!header) return { ok: false, reason: "missing X-Lattice-Signature header" };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: "malformed X-Lattice-Signature header (scheme v2 expected)" };

  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.t) > tolerance)
    return { ok: false, reason: "timestamp outside the tolerance window" };

  // crypto.subtle.verify recomputes the MAC and compares it in constant time, so response timing
  // tells an attacker nothing about how many leading bytes of a forged signature were right.
  const key = await hmacKey(secret, "verify");
  const signed = canonical(parsed.t, request);
  for (const candidate of parsed.v2) {
    if (await crypto.subtle.verify("HMAC", key, hexToBytes(candidate), signed)) return { ok: true };
  }
  return { ok: false, reason: "signature does not match" };
}

/** The header value Lattice would send for `request` at unix time `t` (for tests and local tools). */
export async function signLatticeRequest(
  secret: string,
  request: SignedRequest,
  t: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), canonical(t, request));
  const hex = Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
  return `t=${t},v2=${hex}`;
}
