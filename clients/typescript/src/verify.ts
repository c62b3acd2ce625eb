/**
 * `@lattice/client/verify`: checking that a call really comes from Lattice, for app developers.
 * WebCrypto only, no dependencies: Cloudflare Workers, Node ≥ 20, Deno, Bun and browsers.
 *
 * Lattice signs every call it makes to your endpoint with the per-app secret it showed you once at
 * registration (scheme v2; docs/app-signatures.md has it for any language, with test vectors):
 *
 *   X-Lattice-Signature: t=<unix seconds>,v2=<hex HMAC-SHA256(secret, canonical)>[,v2=…]
 *   canonical = "lattice-v2\n" + t + "\n" + METHOD + "\n" + path + "\n" + X-Lattice-Idempotency-Key
 *               + "\n" + X-Lattice-Call + "\n" + raw body
 *
 * `path` is the request URL's path as your server received it (no query). Verify over the raw body
 * exactly as received (re-serialising JSON changes bytes and breaks the signature), and reject the
 * call with 401 unless the check is `{ ok: true }`. Everything that decides what the call does is
 * signed: a captured `quote` cannot be replayed to `/book`, nor with another idempotency key. The
 * timestamp bounds how long a captured request can be replayed as it is; within that window,
 * de-duplicate on `X-Lattice-Idempotency-Key` (Lattice reuses it when it retries a call).
 *
 * Rotation: for 24 hours after a rotation Lattice signs with the old and the new secret (one `v2`
 * each), and any one that verifies is enough. Pass your secrets as an array while you switch.
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

export interface VerifyOptions {
  /** The current time in unix seconds (tests); default: the clock. */
  now?: number;
  /** Default 300. */
  toleranceSeconds?: number;
}

/** One secret, or several while a rotation overlaps (any one that verifies is enough). */
export type Secrets = string | readonly string[];

const encoder = new TextEncoder();

/** The exact bytes signed: seven parts joined by `\n`, an absent header as the empty string. */
export function canonicalString(t: number, r: SignedRequest): string {
  return [
    "lattice-v2",
    t,
    r.method.toUpperCase(),
    r.path,
    r.idempotencyKey ?? "",
    r.callId ?? "",
    r.body,
  ].join("\n");
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

const secretList = (secrets: Secrets): string[] =>
  (typeof secrets === "string" ? [secrets] : [...secrets]).filter((s) => s.length > 0);

/**
 * Verifies an `X-Lattice-Signature` header against the request as received. Never throws on bad
 * input: every refusal is `{ ok: false, reason }`, the reason fit for your logs (not for the caller).
 */
export async function verifyLatticeSignature(
  secrets: Secrets,
  header: string | null | undefined,
  request: SignedRequest,
  opts: VerifyOptions = {},
): Promise<SignatureCheck> {
  const keys = secretList(secrets);
  if (keys.length === 0) return { ok: false, reason: "no secret configured" };
  if (!header) return { ok: false, reason: "missing X-Lattice-Signature header" };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: "malformed X-Lattice-Signature header (scheme v2 expected)" };

  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.t) > tolerance)
    return { ok: false, reason: "timestamp outside the tolerance window" };

  // crypto.subtle.verify recomputes the MAC and compares it in constant time, so response timing
  // tells an attacker nothing about how many leading bytes of a forged signature were right.
  const signed = encoder.encode(canonicalString(parsed.t, request));
  for (const secret of keys) {
    const key = await hmacKey(secret, "verify");
    for (const candidate of parsed.v2) {
      if (await crypto.subtle.verify("HMAC", key, hexToBytes(candidate), signed)) return { ok: true };
    }
  }
  return { ok: false, reason: "signature does not match" };
}

/**
 * Verifies a Fetch API `Request` (Workers, Deno, Bun, Node's `fetch` servers) and hands back its raw
 * body, read once: parse JSON from `body` only when `ok`. The request's body is consumed.
 */
export async function verifyLatticeRequest(
  secrets: Secrets,
  request: Request,
  opts: VerifyOptions = {},
): Promise<SignatureCheck & { body: string }> {
  const body = await request.text();
  const check = await verifyLatticeSignature(
    secrets,
    request.headers.get("X-Lattice-Signature"),
    {
      method: request.method,
      path: new URL(request.url).pathname,
      idempotencyKey: request.headers.get("X-Lattice-Idempotency-Key"),
      callId: request.headers.get("X-Lattice-Call"),
      body,
    },
    opts,
  );
  return { ...check, body };
}

/** The header value Lattice would send for `request` at unix time `t` (for your tests and tools). */
export async function signLatticeRequest(
  secrets: Secrets,
  request: SignedRequest,
  t: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  const signed = encoder.encode(canonicalString(t, request));
  const macs: string[] = [];
  for (const secret of secretList(secrets)) {
    const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), signed);
    macs.push(`v2=${Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("")}`);
  }
  return [`t=${t}`, ...macs].join(",");
}
