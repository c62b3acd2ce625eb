import { createMiddleware } from "hono/factory";
import { auditLater } from "../../audit.ts";
import type { AppEnv } from "../../env.ts";

/**
 * Every write a credential made (POST, PUT, DELETE that succeeded) leaves an `api_write` audit event
 * naming the key that acted (and, for a user token, its user), the path and the status: the
 * objects' own events say what changed, this one says who asked. Reads and refused requests change
 * nothing and are not logged here (the objects audit the refusals that matter, e.g. policy_refused).
 */
export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const principal = c.get("principal");
  if (!principal || c.req.method === "GET" || c.req.method === "OPTIONS" || c.res.status >= 400) return;
  // Batched with this isolate's other rows for the tenant (no call of its own to the TenantDO, so
  // not one per query), and never throws: the log never fails the request it records.
  await auditLater(c, "api_write", {
    keyId: principal.keyId,
    role: principal.role,
    ...(principal.user && { viaUserToken: true, userId: principal.user.userId }),
    ...(principal.link && { viaConsentLink: true, userId: principal.link.userId }),
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    status: c.res.status,
  });
});
