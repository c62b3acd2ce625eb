import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { chatSessionId } from "../../src/worker/chat/trusted-headers.ts";
import worker from "../../src/worker/index.ts";
import { api } from "./helpers.ts";
import { display, type HubWorld, hubWorld, lit, ref, script, tool } from "./hub-kit.ts";

/**
 * Stock chat frontends at /v1/openai: what Open WebUI sends with ENABLE_FORWARD_USER_INFO_HEADERS
 * (its user and chat in headers, no `user`, the whole history each turn), and LibreChat's header
 * templates named in the tenant's policy.
 */

const BASE = "http://lattice.test/v1/openai";
const IBAN = "DE89370400440532013000";

function client(apiKey: string): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: BASE,
    maxRetries: 0,
    fetch: async (url: string | URL | Request, init?: RequestInit) =>
      worker.fetch(new Request(url, init), env as never),
  });
}

/** The headers Open WebUI's forward_user_info adds to a chat's request (utils/headers.py). */
function openWebUiHeaders(user: { id: string; name: string; email: string }, chatId: string) {
  return {
    "X-OpenWebUI-User-Name": user.name,
    "X-OpenWebUI-User-Id": user.id,
    "X-OpenWebUI-User-Email": user.email,
    "X-OpenWebUI-User-Role": "user",
    "X-OpenWebUI-Chat-Id": chatId,
  };
}

const ALICE = {
  id: "0b6f4a52-8d1e-4c8f-9d0e-6a1f2b3c4d5e",
  name: "Alice Example",
  email: "alice@example.com",
};
const BOB = { id: "7c2d9e10-3b4a-4f5e-8a6b-1c2d3e4f5a6b", name: "Bob Example", email: "bob@example.com" };

type Message = OpenAI.ChatCompletionMessageParam;
interface Lattice {
  sessionId: string;
  queryId: string;
  status: string;
  consents?: Array<{ id: string }>;
}
const latticeOf = (value: unknown) => (value as { lattice: Lattice }).lattice;

/**
 * One chat as Open WebUI runs it: each turn streams, sending the whole history so far (Lattice's own
 * earlier replies included), its headers, and no `user`.
 */
function openWebUiChat(oai: OpenAI, headers: Record<string, string>) {
  const history: Message[] = [];
  return async (text: string) => {
    history.push({ role: "user", content: text });
    const stream = await oai.chat.completions.create(
      { model: "lattice", messages: history, stream: true },
      { headers },
    );
    let content = "";
    let lattice: Lattice | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      lattice ??= (chunk as unknown as { lattice?: Lattice }).lattice;
    }
    history.push({ role: "assistant", content });
    expect(lattice).toBeDefined();
    return { text: content, lattice: lattice! };
  };
}

const lookupPlan = {
  steps: [
    tool("landlord", "contacts.lookup", { name: lit("landlord") }),
    display(ref("landlord"), "Landlord"),
  ],
};
const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", { recipient: lit(IBAN), amount: lit(40), subject: lit("lunch") }),
    display(ref("paid")),
  ],
};

async function world(policy: Record<string, unknown> = {}): Promise<HubWorld> {
  const w = await hubWorld(["contacts", "bank"], policy);
  await script(w.models.planner, [
    { when: "landlord", respond: lookupPlan },
    { when: "send 40", respond: paymentPlan },
  ]);
  return w;
}

/** Whether `userId`'s own token reads the query: the session is theirs (another user's is a 404). */
async function readsAs(w: HubWorld, userId: string, at: Lattice): Promise<boolean> {
  const issued = await api("POST", `/v1/users/${userId}/tokens`, { key: w.frontend, body: {} });
  const token = (issued.body as { token: string }).token;
  const res = await api("GET", `/v1/sessions/${at.sessionId}/queries/${at.queryId}`, { key: token });
  return res.status === 200;
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string; param: unknown }> {
  const err = (await p.catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return { status: err.status ?? 0, code: String(err.code), param: err.param };
}

describe("Open WebUI's forwarded headers", () => {
  it("names the user by X-OpenWebUI-User-Id and keeps one chat in one session", async () => {
    const w = await world();
    const oai = client(w.frontend);
    const turn = openWebUiChat(oai, openWebUiHeaders(ALICE, "chat-1"));
    const first = await turn("Who is my landlord?");
    const second = await turn("And my landlord again?");
    expect(first.lattice.status).toBe("completed");
    expect(second.lattice.sessionId).toBe(first.lattice.sessionId);
    expect(second.lattice.queryId).not.toBe(first.lattice.queryId);
    expect(await readsAs(w, ALICE.id, first.lattice)).toBe(true);
    expect(await readsAs(w, BOB.id, first.lattice)).toBe(false);
    // The id is the keyed hash of (tenant, user, chat): another chat, or another user, is another session.
    expect(first.lattice.sessionId).toBe(
      await chatSessionId("test-key-secret", w.tenant.tenantId, ALICE.id, { name: "c", value: "chat-1" }),
    );
    const other = await openWebUiChat(oai, openWebUiHeaders(ALICE, "chat-2"))("Who is my landlord?");
    expect(other.lattice.sessionId).not.toBe(first.lattice.sessionId);
  });

  it("maps another user's chat id (guessed or replayed) to that user's own session, never the first's", async () => {
    const w = await world();
    const oai = client(w.frontend);
    const alice = await openWebUiChat(oai, openWebUiHeaders(ALICE, "chat-shared"))("Who is my landlord?");
    const bob = await openWebUiChat(oai, openWebUiHeaders(BOB, "chat-shared"))("Who is my landlord?");
    expect(bob.lattice.sessionId).not.toBe(alice.lattice.sessionId);
    expect(await readsAs(w, BOB.id, bob.lattice)).toBe(true);
    expect(await readsAs(w, BOB.id, alice.lattice)).toBe(false);
    // The control: naming Alice's session outright is what the derivation keeps Bob from; it is refused.
    const named = await refusal(
      oai.chat.completions.create(
        { model: "lattice", messages: [{ role: "user", content: "Who is my landlord?" }] },
        { headers: { ...openWebUiHeaders(BOB, "x"), "X-Lattice-Session": alice.lattice.sessionId } },
      ),
    );
    expect(named).toMatchObject({ status: 404, code: "session_not_found" });
  });

  it("lets X-Lattice-Session win over the chat id when a client sends it", async () => {
    const w = await world();
    const oai = client(w.frontend);
    const opened = await api("POST", "/v1/sessions", { key: w.frontend, body: { userId: ALICE.id } });
    const sid = (opened.body as { id: string }).id;
    const reply = await oai.chat.completions.create(
      { model: "lattice", messages: [{ role: "user", content: "Who is my landlord?" }] },
      { headers: { ...openWebUiHeaders(ALICE, "chat-1"), "X-Lattice-Session": sid } },
    );
    expect(latticeOf(reply).sessionId).toBe(sid);
  });

  it("resumes the query a consent held: the history resent runs nothing; answered by its link, the next turn shows the outcome", async () => {
    const w = await world();
    const turn = openWebUiChat(client(w.frontend), openWebUiHeaders(ALICE, "chat-pay"));
    const asked = await turn(`Send 40 EUR to ${IBAN} with subject lunch`);
    expect(asked.lattice.status).toBe("awaiting_consent");
    const consent = asked.lattice.consents?.[0]?.id;
    expect(consent).toBeDefined();
    // Open WebUI resends the first message and Lattice's own reply with the next one: still the same wait.
    const waiting = await turn("yes, go ahead");
    expect(waiting.lattice).toMatchObject({
      sessionId: asked.lattice.sessionId,
      queryId: asked.lattice.queryId,
    });
    expect(waiting.text).toMatch(/still waits for your answer; this message was not run/);
    // The user holds no Lattice credential: the link's token, in its fragment, answers alone.
    const link = /\/consents\/([A-Za-z0-9_-]+)#link=(lc\.[A-Za-z0-9._-]+)/.exec(asked.text);
    expect(link?.[1]).toBe(consent);
    const answered = await api("POST", `/v1/sessions/${asked.lattice.sessionId}/consents/${consent}`, {
      key: link![2],
      body: { decision: "allow", scope: "once" },
    });
    expect(answered.status).toBe(200);
    const outcome = await turn("done?");
    expect(outcome.lattice).toMatchObject({
      earlier: { queryId: asked.lattice.queryId, status: "completed" },
    });
    expect(outcome.text).toMatch(/✓ Done: the payment of .* was made\./);
    expect(outcome.text).not.toMatch(/not run/);
    const after = await turn("Who is my landlord?");
    expect(after.lattice.queryId).not.toBe(asked.lattice.queryId);
    expect(after.lattice.sessionId).toBe(asked.lattice.sessionId);
  });
});

describe("a trustedHeaders change", () => {
  const ask = (oai: OpenAI, headers: Record<string, string>) =>
    oai.chat.completions.create(
      { model: "lattice", messages: [{ role: "user", content: "Who is my landlord?" }] },
      { headers },
    );
  const libreChat = { "X-LibreChat-User-Id": "65f1c2d3e4a5b6c7d8e9f012" };

  it("takes effect at once on the isolate that wrote it, and the 400 meanwhile says what to set", async () => {
    const w = await world();
    const oai = client(w.frontend);
    // The default headers are read (and cached) by a first turn.
    expect(await readsAs(w, ALICE.id, latticeOf(await ask(oai, openWebUiHeaders(ALICE, "c"))))).toBe(true);
    const refused = (await ask(oai, libreChat).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(refused).toMatchObject({ status: 400, code: "user_required" });
    // The message names the setting, the headers it trusts now, and Open WebUI's switch.
    expect(refused.message).toContain("trustedHeaders.user");
    expect(refused.message).toContain("(X-OpenWebUI-User-Id)");
    expect(refused.message).toContain("ENABLE_FORWARD_USER_INFO_HEADERS=true");

    // The admin's change, as the docs say: the current policy (keys masked) with trustedHeaders added.
    const current = await api("GET", "/v1/admin/policy", { key: w.tenant.adminKey });
    const { policy } = current.body as { policy: Record<string, unknown> };
    const trustedHeaders = { user: ["X-LibreChat-User-Id"], chat: [] };
    const put = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { ...policy, trustedHeaders },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // The very next turn reads the new setting (no minute's wait on this isolate).
    const after = await ask(oai, libreChat);
    expect(await readsAs(w, libreChat["X-LibreChat-User-Id"], latticeOf(after))).toBe(true);

    // Switched off entirely: the message says the policy names none.
    const none = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { ...policy, trustedHeaders: { user: [], chat: [] } },
    });
    expect(none.status).toBe(200);
    const off = (await ask(oai, libreChat).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(off).toMatchObject({ status: 400, code: "user_required" });
    expect(off.message).toContain("it names none");
  });
});

describe("who names the user", () => {
  it("takes the body's user or the header when they agree, and refuses when they differ", async () => {
    const w = await world();
    const oai = client(w.frontend);
    const ask = (user: string | undefined, headers: Record<string, string>) =>
      oai.chat.completions.create(
        {
          model: "lattice",
          messages: [{ role: "user", content: "Who is my landlord?" }],
          ...(user && { user }),
        },
        { headers },
      );
    const agreed = await ask(ALICE.id, openWebUiHeaders(ALICE, "c"));
    expect(await readsAs(w, ALICE.id, latticeOf(agreed))).toBe(true);
    expect(await refusal(ask(BOB.id, openWebUiHeaders(ALICE, "c")))).toEqual({
      status: 400,
      code: "user_mismatch",
      param: "user",
    });
    expect(await refusal(ask(undefined, { "X-OpenWebUI-User-Id": "Alice Example" }))).toEqual({
      status: 400,
      code: "invalid_request",
      param: "X-OpenWebUI-User-Id",
    });
    expect(await refusal(ask(undefined, { "X-OpenWebUI-User-Email": ALICE.email }))).toMatchObject({
      status: 400,
      code: "user_required",
    });
  });

  it("lets a user token's own user win: a header naming another is refused, its own is fine", async () => {
    const w = await world();
    const issued = await api("POST", `/v1/users/${ALICE.id}/tokens`, { key: w.frontend, body: {} });
    const oai = client((issued.body as { token: string }).token);
    const ask = (headers: Record<string, string>) =>
      oai.chat.completions.create(
        { model: "lattice", messages: [{ role: "user", content: "Who is my landlord?" }] },
        { headers },
      );
    expect(await refusal(ask(openWebUiHeaders(BOB, "c")))).toEqual({
      status: 400,
      code: "user_mismatch",
      param: "X-OpenWebUI-User-Id",
    });
    const own = await ask(openWebUiHeaders(ALICE, "c"));
    expect(await readsAs(w, ALICE.id, latticeOf(own))).toBe(true);
  });

  it("trusts the headers the tenant's policy names instead (LibreChat's templates)", async () => {
    const w = await world({
      trustedHeaders: { user: ["X-LibreChat-User-Id"], chat: ["X-LibreChat-Conversation-Id"] },
    });
    const oai = client(w.frontend);
    const turn = openWebUiChat(oai, {
      "X-LibreChat-User-Id": "65f1c2d3e4a5b6c7d8e9f012",
      "X-LibreChat-Conversation-Id": "5e3f0c1a-1111-4222-8333-944455556666",
    });
    const first = await turn("Who is my landlord?");
    const second = await turn("Who is my landlord?");
    expect(second.lattice.sessionId).toBe(first.lattice.sessionId);
    expect(await readsAs(w, "65f1c2d3e4a5b6c7d8e9f012", first.lattice)).toBe(true);
    // Open WebUI's header is no longer one this tenant trusts.
    const owui = await refusal(
      oai.chat.completions.create(
        { model: "lattice", messages: [{ role: "user", content: "Who is my landlord?" }] },
        { headers: openWebUiHeaders(ALICE, "c") },
      ),
    );
    expect(owui).toMatchObject({ status: 400, code: "user_required" });
  });
});
