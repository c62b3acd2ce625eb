import { createMiddleware } from "hono/factory";
import { apiKeyTagValid, isUserToken, tenantOfCredential, verifyUserToken } from "../../../credentials.ts";
import { tenantStub } from "../../../objects/stubs.ts";
import type { KeyRole } from "../../../objects/tenant/keys.ts";
import type { AppEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";

const unauthorized = (what = "missing or invalid API key") => new ApiError(401, "unauthorized", what);

/**
 * Authenticates `Authorization: Bearer <credential>` and requires one of `roles`. An API key's tag
 * is checked at the edge (a forged key reaches no object), then against its TenantDO on every
 * request, so a revoked key stops at once. A user token (src/credentials.ts) is checked at the edge
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
    if (isUserToken(credential)) {
      const grant = await verifyUserToken(secret, credential);
      if (!grant) throw unauthorized("invalid or expired user token");
      if (!roles.includes("frontend")) throw forbidden(roles);
      c.set("principal", {
        tenantId: grant.tenantId,
        keyId: grant.kid,
        role: "frontend",
        user: { userId: grant.u, roles: grant.roles ?? null },
      });
      return next();
    }
    const tenantId = tenantOfCredential(credential);
    if (!tenantId || !(await apiKeyTagValid(secret, credential))) throw unauthorized();
    const found = await tenantStub(c.env, tenantId).authenticate(credential);
    if (!found) throw unauthorized();
    if (!roles.includes(found.role)) throw forbidden(roles);
    c.set("principal", { tenantId, keyId: found.keyId, role: found.role });
    await next();
  });
}

/** For routes a user token must not reach (issuing tokens): an API key only. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.principal.user)
    throw new ApiError(403, "forbidden", "this route needs an API key, not a user token");
  await next();
});

/** A user token reaches only its own user's resources: another user's are not found, as if absent. */
export function ownUser(c: { var: AppEnv["Variables"] }, userId: string): boolean {
  const user = c.var.principal.user;
  return !user || user.userId === userId;
}

function forbidden(roles: KeyRole[]): ApiError {
  return new ApiError(403, "forbidden", `this route needs a key of role ${roles.join(" or ")}`);
}

export function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1] ?? null;
}
