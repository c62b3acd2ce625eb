import type { Context } from "hono";
import type { AuditType } from "../audit-types.ts";
import { writeAudit, writeAuditNow } from "../objects/audit-sink.ts";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

/**
 * An edge row for the caller's tenant, batched with this isolate's others (objects/audit-sink.ts):
 * no call of its own to the TenantDO, kept alive past the response by Workers' waitUntil. Never
 * throws: the log never fails the request it records.
 */
export async function auditLater(
  c: Context<AppEnv>,
  type: AuditType,
  detail: Record<string, unknown>,
): Promise<void> {
  const written = writeAudit(c.env, c.var.principal.tenantId, type, detail);
  try {
    c.executionCtx.waitUntil(written);
  } catch {
    await written; // no execution context (a direct call of the handler): wait here
  }
}

/**
 * A row that must be in the log before the response: shipped at once, with this isolate's earlier
 * rows for the tenant. Unwritten (the TenantDO unreachable twice), the request fails with 503 rather
 * than hand out what the admin would not see.
 */
export async function auditNow(
  c: { env: Env },
  tenantId: string,
  type: AuditType,
  detail: Record<string, unknown>,
): Promise<void> {
  if (await writeAuditNow(c.env, tenantId, type, detail)) return;
  throw new ApiError(503, "upstream_failed", {
    message: "the tenant's audit log could not be written; nothing was handed out, try again",
    headers: { "Retry-After": "1" },
  });
}
