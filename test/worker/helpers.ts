import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { flushAudit } from "../../src/objects/audit-sink.ts";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import worker from "../../src/worker/index.ts";

export const OPERATOR_SECRET = "test-operator-secret";

/**
 * Calls the API Worker's handler in-process, as a frontend or admin would over HTTP. Through the
 * handler itself, not the pool's `exports.default`: that path slows down with every request made
 * through it (about 5 ms per request per thousand already made), which thousands of requests notice.
 */
export async function api(
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    /** Leave the body unread (an event stream): `body` is then null. */
    stream?: boolean;
  } = {},
): Promise<{ status: number; body: unknown; response: Response }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["Content-Type"] ??= "application/json";
  const response = await worker.fetch(
    new Request(`http://lattice.test${path}`, { method, headers, body }),
    env,
    afterResponse,
  );
  if (options.stream)
    return { status: response.status, body: response.ok ? null : await response.json(), response };
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed, response };
}

/**
 * An execution context as the runtime gives one: what a handler keeps alive past its response (the
 * audit's batches, objects/audit-batch.ts) runs on in this isolate while the test goes on.
 */
const afterResponse = {
  waitUntil: (_work: Promise<unknown>) => {},
  passThroughOnException: () => {},
  props: {},
} as unknown as ExecutionContext;

/** The tenant's audit log as stored, once this isolate's batched rows have shipped (objects/audit-sink.ts). */
export async function readAudit(tenantId: string, since: { seq: number } | { at: string } = { seq: 0 }) {
  await flushAudit(tenantId);
  return rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenantId))).readAudit(since);
}

export interface TestTenant {
  tenantId: string;
  adminKey: string;
}

export async function createTenant(name = "acme"): Promise<TestTenant> {
  const res = await api("POST", "/v1/operator/tenants", { key: OPERATOR_SECRET, body: { name } });
  expect(res.status).toBe(201);
  const body = res.body as { tenantId: string; adminKey: { secret: string } };
  return { tenantId: body.tenantId, adminKey: body.adminKey.secret };
}

export async function issueKey(
  tenant: TestTenant,
  role: string,
  label = role,
): Promise<{ id: string; secret: string }> {
  const res = await api("POST", "/v1/admin/keys", { key: tenant.adminKey, body: { role, label } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

/** Asserts the API's error shape and returns the error. */
export function expectError(res: { status: number; body: unknown }, status: number, code?: string) {
  expect(res.status).toBe(status);
  const error = (res.body as { error: { code: string; message: string; details?: unknown } }).error;
  expect(typeof error.message).toBe("string");
  if (code) expect(error.code).toBe(code);
  return error;
}
