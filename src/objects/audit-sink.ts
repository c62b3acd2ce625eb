import type { AuditType } from "../audit-types.ts";

/** The tenant's audit log as a writer reaches it (the TenantDO's stub, over RPC). */
export interface AuditLog {
  audit(type: AuditType, detail: Record<string, unknown>): unknown;
}

/**
 * Sends one row to the tenant's audit log, the one way every object and the edge do it: it never
 * throws (a lost row must not fail the query, call or request it records), and a failure is logged,
 * never dropped in silence. A caller that does not await it keeps it alive with `waitUntil`.
 */
export async function sendAudit(
  log: AuditLog,
  type: AuditType,
  detail: Record<string, unknown>,
): Promise<void> {
  try {
    await log.audit(type, detail);
  } catch (err) {
    console.error(`audit: a ${type} event was not written`, err);
  }
}
