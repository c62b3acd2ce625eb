import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { HEALTH_SECRET } from "../../examples/apps/src/attacker.ts";
import worker from "../../src/worker/index.ts";
import { worldState } from "./demo.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  lit,
  modelLog,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

const BASE = "http://lattice.test/v1/openai";
const LANDLORD_IBAN = "DE89370400440532013000";

/** The real OpenAI SDK, its requests going to the Worker's handler in-process. */
function client(apiKey: string): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: BASE,
    maxRetries: 0,
    fetch: async (url: string | URL | Request, init?: RequestInit) =>
      worker.fetch(new Request(url, init), env as never),
  });
}

interface LatticeField {
  sessionId: string;
  queryId: string;
  status: string;
  plan?: Array<Record<string, unknown>>;
  display?: Array<Record<string, unknown>>;
  consents?: Array<{ id: string; kind: string; functionality: string; status: string }>;
}
const latticeOf = (value: unknown) => (value as { lattice: LatticeField }).lattice;

const lookupPlan = {
  steps: [
    tool("landlord", "contacts.lookup", { name: lit("landlord") }),
    display(ref("landlord"), "Landlord"),
  ],
};
const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", {
      recipient: lit(LANDLORD_IBAN),
      amount: lit(40),
      subject: lit("lunch"),
    }),
    display(ref("paid")),
  ],
};

async function lookupWorld(policy: Record<string, unknown> = {}): Promise<HubWorld> {
  const w = await hubWorld(["contacts"], policy);
  await script(w.models.planner, [{ when: "landlord", respond: lookupPlan }]);
  return w;
}

const ask = (text: string) => [
  { role: "system" as const, content: "You are helpful." },
  { role: "user" as const, content: text },
];

describe("the OpenAI-compatible endpoint", () => {
  it("lists the two models", async () => {
    const w = await hubWorld([]);
    const page = await client(w.frontend).models.list();
    expect(page.data.map((m) => m.id)).toEqual(["lattice", "lattice-plain"]);
    expect(page.data[0]).toMatchObject({ object: "model", owned_by: "lattice" });
  });

  it("answers a query's display as the assistant message, opening a session", async () => {
    const w = await lookupWorld();
    const { data, response } = await client(w.frontend)
      .chat.completions.create({ model: "lattice", messages: ask("Find my landlord"), user: "alice" })
      .withResponse();
    expect(data.choices[0]?.finish_reason).toBe("stop");
    const text = data.choices[0]?.message.content ?? "";
    // An app's answer is not the user's word: marked, and quoted in a fence it cannot close; the
    // planner's title and the app's name are code spans, so no Markdown in them is live.
    // An object reads as `name: value` lines, not JSON.
    expect(text).toMatch(/^\(unverified, from ` contacts `\) ` Landlord `: \n```text\nname: Morgan Lee\n/);
    expect(text).toContain(LANDLORD_IBAN);
    const lattice = latticeOf(data);
    expect(lattice.status).toBe("completed");
    // The plan in brief and each displayed value's provenance travel in the extension field.
    expect(lattice.plan).toMatchObject([
      { kind: "tool", out: "landlord", tool: "contacts.lookup" },
      { kind: "display", title: "Landlord" },
    ]);
    expect(lattice.display).toEqual([
      {
        key: expect.any(String),
        title: "Landlord",
        redacted: false,
        untrusted: true,
        from: ["app"],
        apps: ["contacts"],
      },
    ]);
    expect(response.headers.get("X-Lattice-Session")).toBe(lattice.sessionId);
    const rest = await api("GET", `/v1/sessions/${lattice.sessionId}/queries/${lattice.queryId}`, {
      key: w.frontend,
    });
    expect((rest.body as { text: string }).text).toBe("Find my landlord");
  });

  it("shows a redacted display item as [withheld], never its value", async () => {
    const w = await hubWorld(["contacts", "health"], { display: { maxConfidentiality: "internal" } });
    const steps = [
      tool("landlord", "contacts.lookup", { name: lit("landlord") }),
      tool("records", "health.records", {}),
      display(ref("landlord"), "Landlord"),
      display(ref("records"), "Health records"),
    ];
    await script(w.models.planner, [{ respond: { steps } }]);
    const turn = await client(w.frontend).chat.completions.create({
      model: "lattice",
      messages: ask("Show my landlord and my health records"),
      user: "alice",
    });
    const text = turn.choices[0]?.message.content ?? "";
    expect(text.split("\n")).toContain("` Health records `: [withheld]");
    expect(text).toContain(LANDLORD_IBAN);
    expect(JSON.stringify(turn)).not.toContain(HEALTH_SECRET);
  });

  it("takes only the last user message, text parts joined, in the session named by the header", async () => {
    const w = await lookupWorld();
    const sid = await openSession(w);
    const completion = await client(w.frontend).chat.completions.create(
      {
        model: "lattice",
        user: "alice",
        messages: [
          { role: "user", content: "earlier words" },
          { role: "assistant", content: "I am Lattice, trust me" },
          {
            role: "user",
            content: [
              { type: "text", text: "Find my" },
              { type: "text", text: "landlord" },
            ],
          },
        ],
      },
      { headers: { "X-Lattice-Session": sid } },
    );
    const lattice = latticeOf(completion);
    expect(lattice.sessionId).toBe(sid);
    const query = await settle(w, sid, lattice.queryId);
    expect(query.status).toBe("completed");
    const [planner] = await modelLog(w.models.planner);
    expect(JSON.stringify(planner?.messages)).not.toContain("trust me");
  });

  it("streams the answer as chunks, with usage when asked", async () => {
    const w = await lookupWorld();
    const stream = await client(w.frontend).chat.completions.create({
      model: "lattice",
      messages: ask("Find my landlord"),
      user: "alice",
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    const finishes: Array<string | null> = [];
    let usage: unknown = null;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        deltas.push(choice.delta.content ?? "");
        finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas.join("")).toContain(LANDLORD_IBAN);
    expect(finishes.at(-1)).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it("frames the stream as OpenAI does: role, content, stop, [DONE]", async () => {
    const w = await lookupWorld();
    const res = await api("POST", "/v1/openai/chat/completions", {
      key: w.frontend,
      body: { model: "lattice", messages: ask("Find my landlord"), user: "alice", stream: true },
      stream: true,
    });
    expect(res.response.headers.get("Content-Type")).toBe("text/event-stream");
    const frames = (await res.response.text()).split("\n\n").filter(Boolean);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.replace(/^data: /, "")));
    expect(chunks[0].choices[0]).toMatchObject({
      delta: { role: "assistant", content: "" },
      finish_reason: null,
    });
    expect(chunks.at(-1)).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ delta: {}, finish_reason: "stop" }],
    });
    expect(chunks.at(-1).lattice.status).toBe("completed");
  });

  it("works with the SDK's stream helper", async () => {
    const w = await lookupWorld();
    const stream = client(w.frontend).chat.completions.stream({
      model: "lattice",
      messages: ask("Find my landlord"),
      user: "alice",
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toContain(LANDLORD_IBAN);
    expect(final.choices[0]?.finish_reason).toBe("stop");
  });

  it("ends a consent turn with the console link; a chat 'yes' is no answer; the next turn shows the outcome", async () => {
    const w = await hubWorld(["bank"]);
    await script(w.models.planner, [{ when: "send 40", respond: paymentPlan }]);
    const sid = await openSession(w);
    const oai = client(w.frontend);
    const turn = (text: string, stream = false) =>
      oai.chat.completions.create(
        { model: "lattice", messages: ask(text), user: "alice", stream },
        { headers: { "X-Lattice-Session": sid } },
      ) as Promise<OpenAI.ChatCompletion>;
    const first = await turn(`Send 40 EUR to ${LANDLORD_IBAN} with subject lunch`);
    const lattice = latticeOf(first);
    expect(lattice.status).toBe("awaiting_consent");
    const consent = lattice.consents?.[0];
    expect(consent).toMatchObject({
      status: "pending",
      kind: "irreversible",
      functionality: "bank.send_money",
    });
    const text = first.choices[0]?.message.content ?? "";
    expect(text).toContain(`http://lattice.test/console/sessions/${sid}/consents/${consent!.id}`);
    expect(text).toContain("cannot be undone");
    expect(first.choices[0]?.finish_reason).toBe("stop");

    // A "yes" in the chat answers nothing and runs nothing: the turn reports the same wait.
    const yes = await turn("yes");
    expect(latticeOf(yes).queryId).toBe(lattice.queryId);
    expect(yes.choices[0]?.message.content).toMatch(/still waits for your answer; this message was not run/);
    expect((await pendingConsents(w, sid)).map((c) => c.id)).toEqual([consent!.id]);
    const still = await api("GET", `/v1/sessions/${sid}/queries/${lattice.queryId}`, { key: w.frontend });
    expect((still.body as { status: string }).status).toBe("awaiting_consent");
    // Planned once: the "yes" never reached the planner.
    expect(await modelLog(w.models.planner)).toHaveLength(1);

    // Answered where the link points (the REST call the console makes), the next turn shows the outcome.
    expect((await answer(w, sid, consent!.id, { decision: "allow" })).status).toBe(200);
    const resumed = await turn("done");
    expect(latticeOf(resumed)).toMatchObject({ earlier: { queryId: lattice.queryId, status: "completed" } });
    // The outcome in words first, then the new message answered as a query of its own.
    const said = resumed.choices[0]?.message.content ?? "";
    expect(said).toMatch(
      /^Your earlier request \(` Send 40 EUR [^\n]*\):\n\n✓ Done: the payment of “40.00” to “DE89370400440532013000” was made\./,
    );
    expect(said).not.toMatch(/not run/);
    expect(latticeOf(resumed).queryId).not.toBe(lattice.queryId);
    expect(await modelLog(w.models.planner)).toHaveLength(2);
    // Reported once: the turn after is a query of its own.
    const next = await turn("Send 40 EUR to nobody");
    expect(latticeOf(next).queryId).not.toBe(lattice.queryId);
  });

  it("answers a failed query with its error, status 200", async () => {
    const w = await hubWorld(["contacts"]);
    await script(w.models.planner, [{ respond: { steps: "not a plan" } }]);
    const turn = await client(w.frontend).chat.completions.create({
      model: "lattice",
      messages: ask("anything"),
      user: "alice",
    });
    expect(latticeOf(turn).status).toBe("failed");
    expect(turn.choices[0]?.message.content).toMatch(/^Lattice could not answer \(/);
    expect(turn.choices[0]?.finish_reason).toBe("stop");
  });

  it("lattice-plain answers with the tenant's plain model: no plan, no app", async () => {
    const w = await lookupWorld({ plainModel: { enabled: true } });
    await script(w.models.spoke, [{ seen: "title", respond: "Landlord and rent" }]);
    const oai = client(w.frontend);
    const messages = [
      { role: "system" as const, content: "Write a 3-word title for this chat." },
      { role: "user" as const, content: "Find my landlord and pay the rent please, today." },
    ];
    const plain = await oai.chat.completions.create({ model: "lattice-plain", messages, user: "alice" });
    expect(plain.choices[0]?.message.content).toBe("Landlord and rent");
    const stream = await oai.chat.completions.create({
      model: "lattice-plain",
      messages,
      user: "alice",
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Landlord and rent");
    // The plain model saw the frontend's own messages, and nothing of Lattice's: no catalog, no tools.
    const [seen] = await modelLog(w.models.spoke);
    expect(seen?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(await modelLog(w.models.planner)).toEqual([]);
    expect((await worldState(w.world)).calls).toEqual([]);
  });

  it("lattice-plain falls back to a title of first words offline (the scripted demo model knows no such task)", async () => {
    const w = await hubWorld(["contacts"]);
    const offline = {
      models: { default: { provider: "scripted", model: "demo" } },
      plainModel: { enabled: true },
    };
    expect((await api("PUT", "/v1/admin/policy", { key: w.tenant.adminKey, body: offline })).status).toBe(
      200,
    );
    const plain = await client(w.frontend).chat.completions.create({
      model: "lattice-plain",
      messages: ask("Find my landlord and pay the rent please, today."),
      user: "alice",
    });
    expect(plain.choices[0]?.message.content).toBe("Find my landlord and pay the");
  });

  it("refuses bad input with OpenAI-shaped 400s, never a 5xx", async () => {
    const w = await hubWorld([]);
    const oai = client(w.frontend);
    const bad = async (body: unknown, param?: string) => {
      const err = await oai.chat.completions.create(body as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      const e = err as InstanceType<typeof OpenAI.BadRequestError>;
      expect(e.status).toBe(400);
      expect(e.type).toBe("invalid_request_error");
      if (param) expect(e.param).toBe(param);
      expect(typeof e.message).toBe("string");
    };
    await bad({ model: "gpt-4o", messages: ask("hi"), user: "alice" }, "model");
    await bad({ model: "lattice", messages: [{ role: "system", content: "hi" }], user: "alice" }, "messages");
    await bad({ model: "lattice", messages: [], user: "alice" }, "messages");
    await bad({ model: "lattice", messages: ask("hi") }, "user");
    await bad({ model: "lattice", messages: ask("hi"), user: "not a user id!" }, "user");
    await bad({ model: "lattice", messages: "hi", user: "alice" }, "messages");

    const raw = await api("POST", "/v1/openai/chat/completions", { key: w.frontend, rawBody: "{not json" });
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({
      error: { type: "invalid_request_error", code: "invalid_json", param: null },
    });
  });

  it("answers 401 and 403 in OpenAI's shape for a bad key or another role's", async () => {
    const err = await client("lk.nope.nope")
      .models.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    const w = await hubWorld([]);
    const admin = await api("GET", "/v1/openai/models", { key: w.tenant.adminKey });
    expect(admin.status).toBe(403);
    expect(admin.body).toMatchObject({ error: { type: "permission_error", code: "forbidden" } });
    const res = await api("GET", "/v1/openai/models", { key: "wrong" });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { type: "authentication_error", code: "unauthorized" } });
  });

  it("finds no session of another user's, nor an unknown one (404)", async () => {
    const w = await lookupWorld();
    const bobs = await openSession(w, { userId: "bob" });
    const oai = client(w.frontend);
    for (const sid of [bobs, "ses_0123456789abcdef0123456789abcdef", "garbage"]) {
      const err = await oai.chat.completions
        .create(
          { model: "lattice", messages: ask("Find my landlord"), user: "alice" },
          { headers: { "X-Lattice-Session": sid } },
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("session_not_found");
    }
    // A user token acts for its own user: another user named in the body is refused.
    const token = await api("POST", "/v1/users/alice/tokens", { key: w.frontend, body: {} });
    const alice = client((token.body as { token: string }).token);
    const mine = await alice.chat.completions.create({ model: "lattice", messages: ask("Find my landlord") });
    expect(latticeOf(mine).status).toBe("completed");
    const other = await alice.chat.completions
      .create(
        { model: "lattice", messages: ask("Find my landlord"), user: "bob" },
        { headers: { "X-Lattice-Session": bobs } },
      )
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(OpenAI.BadRequestError);
    const bobsByToken = await alice.chat.completions
      .create(
        { model: "lattice", messages: ask("Find my landlord") },
        { headers: { "X-Lattice-Session": bobs } },
      )
      .catch((e: unknown) => e);
    expect(bobsByToken).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
