/**
 * A user's data rights in tests (#34): what each object holds, read from its storage directly, and
 * histories that plant distinctive strings in each object class for an erasure to clear.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { artifactsObjectName, hubObjectName, spokeObjectName } from "../../src/objects/names.ts";
import { tenantServing } from "../../src/objects/stubs.ts";
import { api } from "./helpers.ts";
import { display, type HubWorld, lit, openSession, script, settle, tool } from "./hub-kit.ts";

/** Everything an object stores, every table, serialized: what a reader of its storage could see. */
export async function dump(stub: DurableObjectStub): Promise<string> {
  const { runInDurableObject } = await import("cloudflare:test");
  return runInDurableObject(stub, async (_, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'",
      )
      .toArray()
      .map((t) => t.name);
    const rows = tables.map((t) => [t, state.storage.sql.exec(`SELECT * FROM "${t}"`).toArray()]);
    return JSON.stringify([rows, [...(await state.storage.list()).entries()]]);
  });
}

/** Every object class of the user, read directly: hubs, spokes, the artifacts object (grants, rules). */
export async function walk(w: HubWorld, userId: string, sessions: string[]): Promise<string> {
  const t = w.tenant.tenantId;
  const parts = [await dump(env.ARTIFACTS.getByName(artifactsObjectName(t, userId)))];
  for (const sid of sessions) parts.push(await dump(env.HUB.getByName(hubObjectName(t, sid))));
  for (const app of Object.values(w.apps))
    parts.push(await dump(env.SPOKE.getByName(spokeObjectName(t, userId, app))));
  return parts.join("\n");
}

/** One query in a new or given session, settled to its end; the planner answers with `plan`. */
export async function runQuery(
  w: HubWorld,
  sid: string,
  text: string,
  plan: unknown,
): Promise<{ id: string; status: string }> {
  await script(w.models.planner, [{ respond: plan }]);
  const res = await api("POST", `/v1/sessions/${sid}/queries`, { key: w.frontend, body: { text } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = (res.body as { id: string }).id;
  return { id, status: (await settle(w, sid, id)).status };
}

/** A row as a hub writes one about a query (values in it), in the tenant's log. */
export async function auditRow(w: HubWorld, userId: string, sessionId: string, secret: string) {
  const at = new Date().toISOString();
  const detail = { userId, sessionId, queryId: "q_x", reason: `failed on ${secret}`, code: "failed" };
  await tenantServing(env, w.tenant.tenantId).appendAudit([{ at, type: "query_failed", detail }]);
}

/** A standing rule; `secret`, when given, is the literal it allows. */
export async function standingRule(w: HubWorld, userId: string, secret?: string) {
  const when = secret ? { title: { oneOf: [secret] } } : { participants: { from: "trusted" } };
  const set = await api("POST", `/v1/users/${userId}/standing-rules`, {
    key: w.frontend,
    body: { tool: "calendar.create_event", when },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(201);
}

/** A history for `userId`: a session with a planted query (artifacts saved, spoke memory), a rule. */
export async function history(w: HubWorld, userId: string, secret: string): Promise<string> {
  const sid = await openSession(w, { userId });
  const plan = {
    steps: [tool("landlord", "contacts.lookup", { name: lit("landlord") }), display(lit(`answer ${secret}`))],
  };
  const q = await runQuery(w, sid, `Find my landlord ${secret}`, plan);
  expect(q.status).toBe("completed");
  await auditRow(w, userId, sid, secret);
  await standingRule(w, userId);
  return sid;
}

export const userToken = async (w: HubWorld, userId: string) =>
  ((await api("POST", `/v1/users/${userId}/tokens`, { key: w.frontend, body: {} })).body as { token: string })
    .token;
