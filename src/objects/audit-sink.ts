import type { AuditType } from "../audit-types.ts";
import { AuditBatcher, type Ship } from "./audit-batch.ts";
import { tenantServing } from "./stubs.ts";

/**
 * How every writer outside the TenantDO (hubs, spokes, the edge's routes and access log) reaches the
 * tenant's audit log: through this isolate's batcher (audit-batch.ts), one `appendAudit` per batch
 * instead of one call per row. The TenantDO writes its own rows locally (TenantDO.audit).
 */
const batcher = new AuditBatcher();

type Bindings = Parameters<typeof tenantServing>[0];

/** The stub is made when the batch ships, in the context that ships it: a stub is not shared. */
const shipTo =
  (env: Bindings, tenantId: string): Ship =>
  (rows) =>
    tenantServing(env, tenantId).appendAudit(rows);

/**
 * Buffers a row for the tenant's log, stamped now. Never rejects, never fails what it records; keep
 * the promise alive with `waitUntil` (it settles once the row's batch is shipped, within ~1 s).
 */
export function writeAudit(
  env: Bindings,
  tenantId: string,
  type: AuditType,
  detail: Record<string, unknown>,
): Promise<void> {
  return batcher.write(tenantId, shipTo(env, tenantId), type, detail);
}

/**
 * Ships a row at once (with this isolate's earlier rows for the tenant, so order holds), for an
 * event that must be in the log before the caller answers. Says whether it was written.
 */
export function writeAuditNow(
  env: Bindings,
  tenantId: string,
  type: AuditType,
  detail: Record<string, unknown>,
): Promise<boolean> {
  return batcher.writeNow(tenantId, shipTo(env, tenantId), type, detail);
}

/**
 * Ships what this isolate holds for the tenant (every tenant without one) and waits for shipments in
 * flight: an admin's read of the log, and a test, see every row this isolate wrote before it.
 */
export function flushAudit(tenantId?: string): Promise<boolean> {
  return batcher.flush(tenantId);
}
