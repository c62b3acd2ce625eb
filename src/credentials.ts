/**
 * What the Worker can check before it asks any Durable Object, so junk never reaches one:
 *
 * - An API key reads `lk.<tenantId>.<secret>`, the secret 24 random bytes and an 8-byte tag,
 *   HMAC-SHA256 over the tenant id and those bytes under the deployment's key. A key whose tag does
 *   not verify (made up, or for a tenant id nobody issued) is refused at the edge; the TenantDO then
 *   confirms the key itself (not revoked) by its stored hash.
 * - A user token reads `lu.<tenantId>.<payload>.<tag>`: a frontend key's grant to one user of its
 *   tenant, until `exp`, signed under the same deployment key (another purpose). Stateless and
 *   short-lived (at most an hour): the browser may hold it, never the frontend key.
 *
 * - A consent link reads `lc.<tenantId>.<payload>.<tag>`: one user's answer to one consent of one
 *   session, for a person who holds no Lattice credential (a stock chat frontend's user). Signed as a
 *   user token is (its own purpose), valid at most until the consent expires; the edge accepts it
 *   only for GET and POST of that consent (linkReaches), and the consent answers once.
 *
 * The deployment key is derived (HKDF) from the Worker secret `LATTICE_KEY_SECRET`. Without it,
 * keys are checked by the TenantDO alone and no user token or consent link can be issued.
 */
import * as z from "zod";
import { purposeKey } from "./derive.ts";

const KEY = /^lk\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/;
const TOKEN = /^lu\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,2000})\.([A-Za-z0-9_-]{43})$/;
export const MAX_TOKEN_SECONDS = 3600;

const Payload = z.object({
  /** The user it acts for. */
  u: z.string().min(1).max(128),
  /** Expiry, unix seconds. */
  exp: z.number().int(),
  /** The frontend key that issued it (recorded in the audit log). */
  kid: z.string().min(1).max(64),
  /** The session roles it may open sessions with; absent: any the tenant has. */
  roles: z.array(z.string().max(64)).max(32).optional(),
});
export type UserToken = z.infer<typeof Payload> & { tenantId: string };

const LINK = /^lc\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,1000})\.([A-Za-z0-9_-]{43})$/;
const LinkPayload = z.object({
  /** The session's user. */
  u: z.string().min(1).max(128),
  /** The session. */
  s: z.string().regex(/^ses_[a-f0-9]{32}$/),
  /** The consent. */
  c: z.string().min(1).max(64),
  /** Expiry, unix seconds: at most the consent's own. */
  exp: z.number().int(),
  /** The frontend key whose turn showed the link (recorded in the audit log). */
  kid: z.string().min(1).max(64),
  /** The user's display name as the chat frontend forwarded it: the link's page greets them by it. */
  n: z.string().min(1).max(64).optional(),
});
export type ConsentLink = z.infer<typeof LinkPayload> & { tenantId: string };

export function tenantOfCredential(credential: string): string | null {
  return KEY.exec(credential)?.[1] ?? TOKEN.exec(credential)?.[1] ?? LINK.exec(credential)?.[1] ?? null;
}

export const isUserToken = (credential: string) => credential.startsWith("lu.");
export const isConsentLink = (credential: string) => credential.startsWith("lc.");

/** A new API key secret for a tenant, tagged so the edge can refuse forgeries without storage. */
export async function newApiKey(secret: string | undefined, tenantId: string): Promise<string> {
  const body = crypto.getRandomValues(new Uint8Array(32));
  if (secret) body.set(await tag(secret, "api-keys", `${tenantId}.${base64url(body.slice(0, 24))}`, 8), 24);
  return `lk.${tenantId}.${base64url(body)}`;
}

/** Whether an API key's tag verifies; true when the deployment has no key to check with. */
export async function apiKeyTagValid(secret: string | undefined, key: string): Promise<boolean> {
  const match = KEY.exec(key);
  if (!match) return false;
  if (!secret) return true;
  const body = fromBase64url(match[2]!);
  if (body.length !== 32) return false;
  const expected = await tag(secret, "api-keys", `${match[1]}.${base64url(body.slice(0, 24))}`, 8);
  return crypto.subtle.timingSafeEqual(expected, body.slice(24));
}

export function mintUserToken(
  secret: string,
  token: Omit<UserToken, "tenantId">,
  tenantId: string,
): Promise<string> {
  return signed(secret, "lu", "user-tokens", token, tenantId);
}

/** The token's grant if its tag verifies and it has not expired; null otherwise. */
export function verifyUserToken(
  secret: string | undefined,
  credential: string,
  now = Date.now(),
): Promise<UserToken | null> {
  return opened(secret, TOKEN, "user-tokens", Payload, credential, now);
}

export function mintConsentLink(
  secret: string,
  link: Omit<ConsentLink, "tenantId">,
  tenantId: string,
): Promise<string> {
  return signed(secret, "lc", "consent-links", link, tenantId);
}

/** The link's grant if its tag verifies and it has not expired; null otherwise. */
export function verifyConsentLink(
  secret: string | undefined,
  credential: string,
  now = Date.now(),
): Promise<ConsentLink | null> {
  return opened(secret, LINK, "consent-links", LinkPayload, credential, now);
}

/** The one resource a consent link was signed for: its consent, read (GET) or answered (POST). */
export function linkReaches(link: Pick<ConsentLink, "s" | "c">, method: string, path: string): boolean {
  return (method === "GET" || method === "POST") && path === `/v1/sessions/${link.s}/consents/${link.c}`;
}

type Purpose = "api-keys" | "user-tokens" | "consent-links";

/** `<prefix>.<tenantId>.<payload>.<tag>`: the payload's JSON, tagged with the tenant under the purpose's key. */
async function signed(secret: string, prefix: string, purpose: Purpose, body: object, tenantId: string) {
  const payload = base64url(new TextEncoder().encode(JSON.stringify(body)));
  const mac = await tag(secret, purpose, `${tenantId}.${payload}`, 32);
  return `${prefix}.${tenantId}.${payload}.${base64url(mac)}`;
}

async function opened<T extends { exp: number }>(
  secret: string | undefined,
  pattern: RegExp,
  purpose: Purpose,
  schema: z.ZodType<T>,
  credential: string,
  now: number,
): Promise<(T & { tenantId: string }) | null> {
  const match = pattern.exec(credential);
  if (!match || !secret) return null;
  const [, tenantId, payload, mac] = match as unknown as [string, string, string, string];
  const expected = await tag(secret, purpose, `${tenantId}.${payload}`, 32);
  const given = fromBase64url(mac);
  if (given.length !== 32 || !crypto.subtle.timingSafeEqual(expected, given)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    return null;
  }
  const grant = schema.safeParse(parsed);
  if (!grant.success || grant.data.exp * 1000 <= now) return null;
  return { ...grant.data, tenantId };
}

async function tag(secret: string, purpose: Purpose, message: string, bytes: number): Promise<Uint8Array> {
  const key = await purposeKey(secret, purpose, { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message))).slice(
    0,
    bytes,
  );
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  try {
    const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
    return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}
