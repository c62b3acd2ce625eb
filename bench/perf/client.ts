/**
 * The bench's HTTP client: only the public API (API.md) plus the demo apps' operator routes, over
 * loopback. Sets up a tenant the way a real one is set up: operator creates it, the developer key
 * registers demo apps, the admin key approves them and sets the policy.
 */
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { sleep } from "./stats.ts";
import type { Workerd } from "./workerd.ts";

export interface Reply<T = unknown> {
  status: number;
  body: T;
}

export async function call<T = unknown>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply<T>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as T };
  } catch {
    // Not the API's JSON (workerd's own error page, say): keep the text for the error message.
    return { status: res.status, body: { error: { code: "not_json", message: text.slice(0, 400) } } as T };
  }
}

/** Like `call`, but anything other than the expected status ends the bench with the API's error. */
export async function must<T = unknown>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  expected = [200, 201, 202],
): Promise<T> {
  const reply = await call<T>(base, key, method, path, body);
  if (!expected.includes(reply.status))
    throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 600)}`);
  return reply.body;
}

export interface Tenant {
  api: string;
  apps: string;
  world: string;
  admin: string;
  frontend: string;
  /** The deployment's operator secret (the call counts route). */
  operator: string;
  /** Per-app signing secrets, so the bench can call an app directly (the app-only baseline). */
  secrets: Record<string, string>;
}

export async function setupTenant(w: Workerd, appNames: readonly string[], world: string): Promise<Tenant> {
  const created = await must<{ tenantId: string; adminKey: { secret: string } }>(
    w.api,
    w.operatorSecret,
    "POST",
    "/v1/operator/tenants",
    { name: `bench ${world}` },
  );
  const admin = created.adminKey.secret;
  const issue = async (role: string) =>
    (await must<{ secret: string }>(w.api, admin, "POST", "/v1/admin/keys", { role, label: `bench ${role}` }))
      .secret;
  const developer = await issue("developer");
  const frontend = await issue("frontend");
  const secrets: Record<string, string> = {};
  for (const manifest of demoManifests(w.apps, world).filter((m) => appNames.includes(m.name))) {
    const app = await must<{ id: string; secret: string }>(w.api, developer, "POST", "/v1/apps", manifest);
    await must(w.api, admin, "POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {});
    secrets[manifest.name] = app.secret;
  }
  const handed = await fetch(`${w.apps}/w/${world}/_demo/secrets`, {
    method: "PUT",
    body: JSON.stringify(secrets),
  });
  if (!handed.ok) throw new Error(`handing app secrets to the demo apps failed: ${handed.status}`);
  return { api: w.api, apps: w.apps, world, admin, frontend, operator: w.operatorSecret, secrets };
}

export async function putPolicy(t: Tenant, policy: Record<string, unknown>): Promise<void> {
  // The perf plans name apps' own tools (apps mode); catalog mode costs the same per step.
  await must(t.api, t.admin, "PUT", "/v1/admin/policy", { planning: { mode: "apps" }, ...policy });
}

export async function openSession(t: Tenant, userId: string): Promise<string> {
  return (await must<{ id: string }>(t.api, t.frontend, "POST", "/v1/sessions", { userId })).id;
}

export interface QueryView {
  id: string;
  status: string;
  createdAt: string;
  trace: Array<{ type: string; at: string; data: Record<string, unknown> }>;
  error: { code: string; message: string } | null;
}

const TERMINAL = new Set(["completed", "failed", "rejected", "awaiting_consent"]);

export interface Timed {
  query: QueryView;
  /** Epoch ms just before the POST was sent (Node's clock: the same host clock workerd reads). */
  sentAt: number;
  /** Epoch ms of the hub's query_finished event (workerd's clock). */
  finishedAt: number;
  /** ms from sending to the first poll that saw the query finished: an upper bound, poll-quantized. */
  observedMs: number;
}

/** Starts a query over HTTP. */
export async function ask(t: Tenant, sid: string, text: string): Promise<{ qid: string; sentAt: number }> {
  const sentAt = Date.now();
  const q = await must<{ id: string }>(t.api, t.frontend, "POST", `/v1/sessions/${sid}/queries`, { text });
  return { qid: q.id, sentAt };
}

/** Polls until the query stops; a bounded wait, and a failed query is an error (the bench measures successes). */
export async function finish(
  t: Tenant,
  sid: string,
  started: { qid: string; sentAt: number },
  pollMs: number,
  timeoutMs = 60_000,
): Promise<Timed> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const query = await must<QueryView>(
      t.api,
      t.frontend,
      "GET",
      `/v1/sessions/${sid}/queries/${started.qid}`,
    );
    if (TERMINAL.has(query.status)) {
      const observedMs = Date.now() - started.sentAt;
      if (query.status !== "completed")
        throw new Error(`query ${query.id} ended ${query.status}: ${JSON.stringify(query.error)}`);
      const done = query.trace.findLast((e) => e.type === "query_finished");
      if (!done) throw new Error(`query ${query.id} has no query_finished event`);
      return { query, sentAt: started.sentAt, finishedAt: Date.parse(done.at), observedMs };
    }
    if (Date.now() > deadline)
      throw new Error(`query ${started.qid} still ${query.status} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}
