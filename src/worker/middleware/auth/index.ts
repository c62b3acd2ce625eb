import { createMiddleware } from "hono/factory";
import {
  apiKeyTagValid,
  isConsentLink,
  isUserToken,
  linkReaches,
  tenantOfCredential,
  verifyConsentLink,
  verifyUserToken,
} from "../../../credentials.ts";
import { secretsEqual, sha256Hex } from "../../../objects/crypto.ts";
import { JOIN_MS, joinFor } from "../../../objects/join.ts";
import { tenantAuth } from "../../../objects/stubs.ts";
import type { KeyRole } from "../../../objects/tenant/keys.ts";
import { servingState } from "../../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { MAX_PRINCIPAL_TTL_MS, PRINCIPAL_TTL_MS, PrincipalCache } from "./principal-cache.ts";

const unauthorized = (what = "missing or invalid API key") =>
  new ApiError(401, "unauthorized", { message: what });

/**
 * Authenticates `Authorization: Bearer <credential>` and requires one of `roles`. An API key's tag
 * is checked at the edge (a forged key reaches no object), then against its TenantDO, remembered
 * for `PRINCIPAL_TTL_MS` in this isolate (principal-cache.ts: a revoked key stops at once here,
 * within that bound elsewhere). A user token (src/credentials.ts) is checked at the edge
 * alone and acts as a frontend key narrowed to one user.
 */
export function requireRole(...roles: KeyRole[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // Two route files may share a prefix; the credential is checked once per request.
    const known = c.get("principal");
    if (known && roles.includes(known.role)) return next();
    const credential = bearer(c.req.header("Authorization"));
    if (!credential) throw unauthorized();
    const secret = c.env.LATTICE_KEY_SECRET;
    if (isConsentLink(credential)) {
      const link = await verifyConsentLink(secret, credential);
      if (!link) throw unauthorized("invalid or expired consent link");
      if (!roles.includes("frontend") || !linkReaches(link, c.req.method, c.req.path))
        throw new ApiError(403, "forbidden", {
          message:
            "a consent link reaches only its own consent: GET or POST /v1/sessions/{sid}/consents/{cid}",
        });
      const { tenantId, kid, u, s, c: consentId } = link;
      await issuerLive(c.env, tenantId, kid);
      c.set("principal", {
        tenantId,
        keyId: kid,
        role: "frontend",
        link: { userId: u, sessionId: s, consentId },
      });
      await withinRate(c.env, credential);
      return next();
    }
    if (isUserToken(credential)) {
      const grant = await verifyUserToken(secret, credential);
      if (!grant) throw unauthorized("invalid or expired user token");
      if (!roles.includes("frontend")) throw forbidden(roles);
      await issuerLive(c.env, grant.tenantId, grant.kid);
      c.set("principal", {
        tenantId: grant.tenantId,
        keyId: grant.kid,
        role: "frontend",
        user: { userId: grant.u, roles: grant.roles ?? null },
      });
      // After the principal is known: a 429 to a browser still carries its CORS headers.
      await withinRate(c.env, credential);
      return next();
    }
    const tenantId = tenantOfCredential(credential);
    if (!tenantId) throw unauthorized();
    const hash = await sha256Hex(credential);
    const cache = principals(c.env);
    let found = cache.get(hash, Date.now()) as { keyId: string; role: KeyRole } | null;
    // A cached key passed the tag check when it was cached (same bytes, same hash): not checked again.
    if (!found && !(await apiKeyTagValid(secret, credential))) throw unauthorized();
    // Before the TenantDO: a flood with one key is stopped here, not at the tenant's one object.
    await withinRate(c.env, credential);
    if (!found) {
      found = await verifyOnce(c.env, tenantId, hash, credential);
      if (!found) throw unauthorized();
      cache.set(hash, { tenantId, keyId: found.keyId, role: found.role }, Date.now());
    }
    if (!roles.includes(found.role)) throw forbidden(roles);
    c.set("principal", { tenantId, keyId: found.keyId, role: found.role });
    await next();
  });
}

/**
 * A user token or consent link ends with the key that issued it: refused once the tenant's state
 * held here lists the key revoked (at once in the isolate that revoked it, within STATE_BOUND_MS in
 * every other). Stateless otherwise: no storage read per request.
 */
async function issuerLive(env: Env, tenantId: string, keyId: string): Promise<void> {
  const { revokedKeys } = await servingState(env, tenantId);
  if (revokedKeys.includes(keyId)) throw unauthorized("the key that issued this credential was revoked");
}

/**
 * A key being confirmed by its tenant, by digest: a burst of requests with one key whose cache entry
 * has just ended asks the tenant once, not once per request (a 256-query burst asked 18 times).
 */
const verifying = new Map<
  string,
  { pending: Promise<{ keyId: string; role: KeyRole } | null>; at: number }
>();

async function verifyOnce(env: Env, tenantId: string, hash: string, credential: string) {
  const running = verifying.get(hash);
  // Joined for a bounded time only (join.ts): the request that asked may be cancelled mid-call.
  if (running && Date.now() - running.at < JOIN_MS) {
    const joined = await joinFor(running.pending, JOIN_MS);
    if (joined) return joined.value;
  }
  const pending = tenantAuth(env, tenantId).authenticate(credential);
  const entry = { pending, at: Date.now() };
  const done = () => {
    if (verifying.get(hash) === entry) verifying.delete(hash);
  };
  pending.then(done, done);
  verifying.set(hash, entry);
  return pending;
}

let cache: PrincipalCache | null = null;
/** The isolate's cache of verified keys; `LATTICE_PRINCIPAL_TTL_MS` sets its bound (0: no cache). */
export function principals(env: { LATTICE_PRINCIPAL_TTL_MS?: string }): PrincipalCache {
  if (!cache) {
    const ttl =
      env.LATTICE_PRINCIPAL_TTL_MS === undefined ? PRINCIPAL_TTL_MS : Number(env.LATTICE_PRINCIPAL_TTL_MS);
    cache = new PrincipalCache(
      Number.isFinite(ttl) ? Math.min(Math.max(ttl, 0), MAX_PRINCIPAL_TTL_MS) : PRINCIPAL_TTL_MS,
    );
  }
  return cache;
}

/** The deployment operator's routes: the Worker secret LATTICE_OPERATOR_SECRET, compared in constant time. */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  const expected = c.env.LATTICE_OPERATOR_SECRET;
  const given = bearer(c.req.header("Authorization"));
  // No configured secret means no operator access at all, rather than an empty-secret match.
  if (!expected || !given || !(await secretsEqual(given, expected))) {
    throw new ApiError(401, "unauthorized", { message: "missing or invalid operator secret" });
  }
  await next();
});

/** For routes a user token must not reach (issuing tokens): an API key only. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.principal.user || c.var.principal.link)
    throw new ApiError(403, "forbidden", { message: "this route needs an API key, not a user token" });
  await next();
});

/** A user token reaches only its own user's resources: another user's are not found, as if absent. */
export function ownUser(c: { var: AppEnv["Variables"] }, userId: string): boolean {
  const { user, link } = c.var.principal;
  if (link) return false;
  return !user || user.userId === userId;
}

/** Seconds a limited credential waits: the limiter's window (wrangler.toml `[[ratelimits]]`). */
export const RATE_WINDOW_SECONDS = 60;

/**
 * One request of a credential against the deployment's per-credential rate (the Workers rate-limit
 * binding, keyed by a digest of the credential, never the secret itself). `LATTICE_RATE_LIMIT=off`
 * lets a benchmark measure the hub alone.
 */
async function withinRate(env: Env, credential: string): Promise<void> {
  await withinLimit(
    env,
    env.CREDENTIAL_LIMITER,
    (await sha256Hex(credential)).slice(0, 32),
    "too many requests with this credential",
  );
}

/**
 * One request against a rate-limit binding, keyed by `key` (never a secret): 429 with Retry-After
 * past it. No binding, or `LATTICE_RATE_LIMIT=off`, limits nothing. The per-credential rate above
 * and a route's own (a developer's try-it calls) share it.
 */
export async function withinLimit(
  env: Env,
  limiter: RateLimit | undefined,
  key: string,
  message: string,
): Promise<void> {
  if (!limiter || env.LATTICE_RATE_LIMIT === "off") return;
  const { success } = await limiter.limit({ key });
  if (!success) {
    throw new ApiError(429, "rate_limited", {
      message,
      headers: {
        "Retry-After": String(RATE_WINDOW_SECONDS),
      },
    });
  }
}

function forbidden(roles: KeyRole[]): ApiError {
  return new ApiError(403, "forbidden", { message: `this route needs a key of role ${roles.join(" or ")}` });
}

export function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1] ?? null;
}
