import { createMiddleware } from "hono/factory";
import { tenantStub } from "../../../objects/stubs.ts";
import type { KeyRole } from "../../../objects/tenant/keys.ts";
import { tenantOfKey } from "../../../objects/tenant/keys.ts";
import type { AppEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";

const unauthorized = () => new ApiError(401, "unauthorized", "missing or invalid API key");

/**
 * Authenticates `Authorization: Bearer <key>` against the key's TenantDO and requires one of `roles`.
 * Every request asks the TenantDO, so a revoked key stops working at once (no cache to expire).
 */
export function requireRole(...roles: KeyRole[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // Two route files may share a prefix; the key is checked once per request.
    const known = c.get("principal");
    if (known && roles.includes(known.role)) return next();
    const key = bearer(c.req.header("Authorization"));
    const tenantId = key ? tenantOfKey(key) : null;
    if (!key || !tenantId) throw unauthorized();
    const tenant = tenantStub(c.env, tenantId);
    const found = await tenant.authenticate(key);
    if (!found) throw unauthorized();
    if (!roles.includes(found.role)) {
      throw new ApiError(403, "forbidden", `this route needs a key of role ${roles.join(" or ")}`);
    }
    c.set("principal", { tenantId, keyId: found.keyId, role: found.role });
    await next();
  });
}

export function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1] ?? null;
}
