/**
 * Checking that a call really comes from Lattice. Copy this file into your app; it needs only WebCrypto.
 *
 * Lattice signs every call it makes to your endpoint with the per-app secret it showed you once at
 * registration:
 *
 *   X-Lattice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * Verify over the raw body exactly as received (read it with `await request.text()` before parsing
 * JSON: re-serialising changes bytes and breaks the signature), and reject the call with 401 unless
 * this returns `{ ok: true }`. The timestamp is inside the signed text, so an attacker cannot refresh
 * it; the tolerance window bounds how long a captured request can be replayed. Within that window,
 * de-duplicate on `X-Lattice-Idempotency-Key` (Lattice reuses it when it retries a call).
 */

/** How far (seconds) the signed timestamp may be from our clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

const encoder = new TextEncoder();

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

/** Parses `t=…,v1=…`. Several `v1` are allowed (a signer may sign with an old and a new secret). */
function parseHeader(header: string): { t: number; v1: string[] } | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === "v1" && /^[0-9a-fA-F]{64}$/.test(value)) v1.push(value);
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/**
 * Verifies an `X-Lattice-Signature` header against the raw request body.
 * `opts.now` (unix seconds) is for tests; `opts.toleranceSeconds` defaults to 300.
 */
export async function verifyLatticeSignature(
  secret: string,
  header: string | null,
  rawBody: string,
  opts: { now?: number; toleranceSeconds?: number } = {},
): Promise<SignatureCheck> {
  if (!secret) return { ok: false, reason: "no secret configured" };
  if (!header) return { ok: false, reason: "missing X-Lattice-Signature header" };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: "malformed X-Lattice-Signature header" };

  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.t) > tolerance)
    return { ok: false, reason: "timestamp outside the tolerance window" };

  // crypto.subtle.verify recomputes the MAC and compares it in constant time, so response timing
  // tells an attacker nothing about how many leading bytes of a forged signature were right.
  const key = await hmacKey(secret, "verify");
  const signed = encoder.encode(`${parsed.t}.${rawBody}`);
  for (const candidate of parsed.v1) {
    if (await crypto.subtle.verify("HMAC", key, hexToBytes(candidate), signed)) return { ok: true };
  }
  return { ok: false, reason: "signature does not match" };
}

/** The header value Lattice would send for `body` at unix time `t` (for tests and local tools). */
export async function signLatticeRequest(
  secret: string,
  body: string,
  t: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), encoder.encode(`${t}.${body}`));
  const hex = Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
  return `t=${t},v1=${hex}`;
}
