import { env } from "cloudflare:workers";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import type { ConsentView } from "../../src/runtime/consent-view.ts";
import worker from "../../src/worker/index.ts";
import { worldState } from "./demo.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  INVITE_PLAN,
  INVITE_QUERY,
  lit,
  openSession,
  pendingConsents,
  ref,
  script,
  tool,
} from "./hub-kit.ts";

const CHAT_API = "http://lattice.test/v1/ai-sdk/chat";
const LANDLORD_IBAN = "DE89370400440532013000";
const lattice = (input: RequestInfo | URL, init?: RequestInit) =>
  worker.fetch(new Request(input, init), env as never);

/** useChat's state without React: what @ai-sdk/react keeps in a hook, kept in an array here. */
class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (m: UIMessage) => void this.messages.push(m);
  popMessage = () => void this.messages.pop();
  replaceMessage = (i: number, m: UIMessage) => {
    this.messages[i] = m;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class Chat extends AbstractChat<UIMessage> {
  constructor(key: string, headers: Record<string, string> = {}) {
    super({
      id: "chat-1",
      state: new MemoryState(),
      transport: new DefaultChatTransport({
        api: CHAT_API,
        headers: { Authorization: `Bearer ${key}`, ...headers },
        body: { user: "alice" },
        fetch: lattice as typeof fetch,
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }
  get last(): UIMessage {
    return this.messages.at(-1)!;
  }
  /** Until the automatic request an approval answer triggers has run. */
  async idle(): Promise<void> {
    for (let i = 0; i < 400 && this.status !== "ready" && this.status !== "error"; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

type ToolPart = Extract<UIMessage["parts"][number], { type: "dynamic-tool" }>;
const toolParts = (m: UIMessage) => m.parts.filter((p): p is ToolPart => p.type === "dynamic-tool");
const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");

/** The tag with its first character changed (a forged tag of the right length). */
const flipFirst = (tag: string) => (tag.startsWith("A") ? "B" : "A") + tag.slice(1);

const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", {
      recipient: lit(LANDLORD_IBAN),
      amount: lit(40),
      subject: lit("lunch"),
    }),
    display(ref("paid"), "Payment"),
  ],
};

async function bankWorld(): Promise<{ w: HubWorld; sid: string }> {
  const w = await hubWorld(["bank"]);
  await script(w.models.planner, [{ when: "send 40", respond: paymentPlan }]);
  return { w, sid: await openSession(w) };
}
const PAY = `Send 40 EUR to ${LANDLORD_IBAN} with subject lunch`;

describe("the AI SDK UI message stream", () => {
  it("streams a query's steps as tool parts and its display as text, read by ai's own reader", async () => {
    const w = await hubWorld(["contacts"]);
    const plan = {
      steps: [
        tool("landlord", "contacts.lookup", { name: lit("landlord") }),
        display(ref("landlord"), "Landlord"),
      ],
    };
    await script(w.models.planner, [{ when: "landlord", respond: plan }]);
    const transport = new DefaultChatTransport({
      api: CHAT_API,
      headers: { Authorization: `Bearer ${w.frontend}` },
      body: { user: "alice" },
      fetch: lattice as typeof fetch,
    });
    const stream = await transport.sendMessages({
      chatId: "c-read",
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Find my landlord" }] }],
    });
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream, terminateOnError: true })) message = m;
    const parts = toolParts(message!);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({
      toolName: "contacts.lookup",
      state: "output-available",
      input: { app: "contacts" },
    });
    // The step's label, never its value: values reach the user through the display only.
    expect(Object.keys(parts[0]!.output as object)).toEqual(["label"]);
    expect(textOf(message!)).toContain(LANDLORD_IBAN);
    expect(message!.metadata).toMatchObject({ lattice: { status: "completed" } });
  });

  it("frames the stream as v1: header, start, text-start/-delta/-end, finish, [DONE]", async () => {
    const { w } = await bankWorld();
    const res = await lattice(CHAT_API, {
      method: "POST",
      headers: { Authorization: `Bearer ${w.frontend}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "c-frames",
        user: "alice",
        messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }],
      }),
    });
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const frames = (await res.text()).split("\n\n").filter(Boolean);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const types = frames
      .slice(0, -1)
      .map((f) => (JSON.parse(f.slice("data: ".length)) as UIMessageChunk).type);
    expect(types[0]).toBe("start");
    expect(types.slice(-4)).toEqual(["text-start", "text-delta", "text-end", "finish"]);
  });

  it("asks a consent as a tool approval with the hub's assessment; approving runs the step", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const [part] = toolParts(chat.last);
    expect(part).toMatchObject({ toolName: "bank.send_money", state: "approval-requested" });
    const approval = (part as { approval: { id: string; requestReason?: string; descriptor?: unknown } })
      .approval;
    const [consent] = await pendingConsents(w, sid);
    expect(consent).toMatchObject({ kind: "irreversible", status: "pending" });
    expect(approval.id).toMatch(new RegExp(`^lca1\\.${consent!.id}\\.`));
    expect(approval.descriptor).toMatchObject({
      lattice: { consentId: consent!.id, kind: "irreversible", assessment: consent!.assessment },
    });
    expect(approval.requestReason).toContain(consent!.assessment.reasons[0]);
    expect((part as { input: unknown }).input).toMatchObject({ recipient: LANDLORD_IBAN, amount: 40 });
    expect((await worldState(w.world)).calls).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval.id, approved: true });
    await chat.idle();
    expect(chat.status).toBe("ready");
    expect(toolParts(chat.last)[0]).toMatchObject({ toolName: "bank.send_money", state: "output-available" });
    expect(textOf(chat.last)).toMatch(/` Payment `:/);
    expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
    expect((await worldState(w.world)).calls.map((c) => c.functionality)).toEqual(["send_money"]);
    const answered = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
    expect((answered.body as { consents: Array<{ status: string }> }).consents[0]?.status).toBe("allowed");
  });

  it("carries the consent's view in the approval: a payment, its values' sources", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (
      toolParts(chat.last)[0] as { approval: { descriptor?: { lattice: { view?: ConsentView } } } }
    ).approval;
    const view = approval.descriptor!.lattice.view!;
    expect(view.kind).toBe("payment");
    expect(view.fields.find((f) => f.name === "iban")).toMatchObject({
      value: LANDLORD_IBAN,
      sources: [{ kind: "user", words: "your words" }],
      warnings: [],
    });
  });

  it.each([
    ["session", "session", false],
    // Control: without a reason the approval is for once, and the next request asks again.
    [undefined, "once", true],
  ])(
    "an approval with reason %s answers for %s; the next request asks again: %s",
    async (reason, scope, again) => {
      const w = await hubWorld(["contacts", "calendar"]);
      await script(w.models.planner, [{ respond: INVITE_PLAN }]);
      const sid = await openSession(w);
      const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
      const asking = () => toolParts(chat.last).find((p) => p.state === "approval-requested");
      await chat.sendMessage({ text: INVITE_QUERY });
      const approval = (asking() as { approval: { id: string } }).approval;
      await chat.addToolApprovalResponse({ id: approval.id, approved: true, ...(reason && { reason }) });
      await chat.idle();
      expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
      const consents = (await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend })).body as {
        consents: Array<{ kind: string; scope: string | null }>;
      };
      expect(consents.consents).toEqual([expect.objectContaining({ kind: "data_share", scope })]);
      await chat.sendMessage({ text: INVITE_QUERY });
      expect(asking() !== undefined).toBe(again);
    },
  );

  it("an approval for longer than an irreversible consent allows is refused, not narrowed to once", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    await chat.addToolApprovalResponse({ id: approval.id, approved: true, reason: "permanent" });
    await chat.idle();
    expect(toolParts(chat.last)[0]).toMatchObject({ state: "output-error" });
    expect((toolParts(chat.last)[0] as { errorText?: string }).errorText).toMatch(/only once, not permanent/);
    expect((await worldState(w.world)).calls).toEqual([]);
    const [still] = await pendingConsents(w, sid);
    expect(still).toMatchObject({ kind: "irreversible", status: "pending" });
    // Control: the same consent answered once (the approval without a reason) runs, as above.
    expect((await answer(w, sid, still!.id, { decision: "allow", scope: "once" })).status).toBe(200);
  });

  it("denying the approval stops the step: no call, the part denied, the consent denied", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    await chat.addToolApprovalResponse({ id: approval.id, approved: false });
    await chat.idle();
    expect(toolParts(chat.last)[0]).toMatchObject({ state: "output-denied" });
    expect(textOf(chat.last)).toMatch(/Lattice could not answer/);
    expect((await worldState(w.world)).calls).toEqual([]);
    const after = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
    expect((after.body as { consents: Array<{ status: string }> }).consents[0]?.status).toBe("denied");
  });

  it("an approval id answers only in its own session: another session's, or a forged one, is refused", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const assistant = chat.last;
    const approval = (toolParts(assistant)[0] as { approval: { id: string } }).approval;
    const [consent] = await pendingConsents(w, sid);
    const answering = (id: string) =>
      ({
        ...assistant,
        parts: assistant.parts.map((p) =>
          p.type === "dynamic-tool"
            ? { ...p, state: "approval-responded", approval: { id, approved: true } }
            : p,
        ),
      }) as UIMessage;
    const post = (session: string, id: string) =>
      lattice(CHAT_API, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${w.frontend}`,
          "content-type": "application/json",
          "X-Lattice-Session": session,
        },
        body: JSON.stringify({
          id: "chat-1",
          user: "alice",
          trigger: "submit-message",
          messages: [answering(id)],
        }),
      });

    // The same user's other session, the signed id replayed there; then the bare consent id, and a tampered tag.
    const other = await openSession(w);
    for (const [session, id] of [
      [other, approval.id],
      [sid, consent!.id],
      [sid, `${approval.id.slice(0, -2)}xx`],
      [sid, `lca1.${consent!.id}.${flipFirst(approval.id.split(".")[2]!)}`],
    ] as const) {
      const res = await post(session, id);
      expect(res.status, id).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_approval" } });
    }
    expect((await pendingConsents(w, sid)).map((c) => c.id)).toEqual([consent!.id]);
    expect((await worldState(w.world)).calls).toEqual([]);
    // Control: the same request with the id as issued, in its own session, answers the consent.
    const ok = await post(sid, approval.id);
    expect(ok.status).toBe(200);
    await ok.text();
    expect(await pendingConsents(w, sid)).toEqual([]);
  });

  it("an approval of a consent answered meanwhile elsewhere follows the query to its outcome", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    const [consent] = await pendingConsents(w, sid);
    // Answered in the console (its REST call) before the chat's button is pressed.
    expect((await answer(w, sid, consent!.id, { decision: "allow" })).status).toBe(200);
    await chat.addToolApprovalResponse({ id: approval.id, approved: false });
    await chat.idle();
    expect(chat.status).toBe("ready");
    expect(textOf(chat.last)).toContain("This was answered already (allowed).");
    expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
    // The late "deny" changed nothing: the payment the console allowed was made.
    expect((await worldState(w.world)).calls.map((c) => c.functionality)).toEqual(["send_money"]);
  });

  it("an app choice cannot be answered by an approval: it stays pending, pointing to its page", async () => {
    const w = await hubWorld(["swiftride", "cheapcab"]);
    const quote = {
      steps: [
        tool("q", "cheapcab.quote", { from: lit("Home"), to: lit("Airport") }),
        display(ref("q", "fare")),
      ],
    };
    await script(w.models.planner, [{ respond: quote }]);
    const sid = await openSession(w);
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: "Get me a ride quote from Home to Airport" });
    const part = toolParts(chat.last)[0] as ToolPart & { approval: { id: string; descriptor?: unknown } };
    expect(part.approval.descriptor).toMatchObject({
      lattice: {
        kind: "app_selection",
        options: expect.arrayContaining([expect.objectContaining({ appSays: expect.any(String) })]),
      },
    });
    const partsBefore = chat.last.parts.length;
    await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
    await chat.idle();
    // The part ends (so the client stops re-sending its answer), saying where the choice is made.
    expect(toolParts(chat.last)[0]).toMatchObject({
      state: "output-error",
      errorText: expect.stringContaining("Choose the app on the consent's page"),
    });
    expect(textOf(chat.last)).toContain(`/console/sessions/${sid}/consents/`);
    // Nothing replayed: no second approval request, only the consent's text added.
    expect(toolParts(chat.last)).toHaveLength(1);
    expect(chat.last.parts.length).toBeLessThanOrEqual(partsBefore + 2);
    expect((await pendingConsents(w, sid)).map((c) => c.kind)).toEqual(["app_selection"]);
    expect((await worldState(w.world)).calls).toEqual([]);
  });

  it("a new message while a consent is open reports on that request; it is not run and answers nothing", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const [consent] = await pendingConsents(w, sid);
    await chat.sendMessage({ text: "yes" });
    expect(textOf(chat.last)).toMatch(/is still open; this message was not run/);
    // Shown again in the new message with its approval, so the user can still answer it here.
    expect(toolParts(chat.last)[0]).toMatchObject({ state: "approval-requested" });
    expect((await pendingConsents(w, sid)).map((c) => c.id)).toEqual([consent!.id]);
    expect((await worldState(w.world)).calls).toEqual([]);
  });

  it("finds the chat's session again by its id, per user, without a header", async () => {
    const w = await hubWorld(["contacts"]);
    await script(w.models.planner, [{ respond: { steps: [display(lit("hi"))] } }]);
    const send = async (user: string, chatId: string) => {
      const res = await lattice(CHAT_API, {
        method: "POST",
        headers: { Authorization: `Bearer ${w.frontend}`, "content-type": "application/json" },
        body: JSON.stringify({
          id: chatId,
          user,
          messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
        }),
      });
      await res.text();
      return res.headers.get("X-Lattice-Session");
    };
    const first = await send("alice", "c-1");
    expect(first).toMatch(/^ses_[a-f0-9]{32}$/);
    expect(await send("alice", "c-1")).toBe(first);
    expect(await send("alice", "c-2")).not.toBe(first);
    expect(await send("bob", "c-1")).not.toBe(first);
  });

  it("refuses bad input with the API's error shape, never a 5xx", async () => {
    const w = await hubWorld([]);
    const post = (body: string, key = w.frontend) =>
      lattice(CHAT_API, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      });
    const user = [{ role: "user", parts: [{ type: "text", text: "hi" }] }];
    for (const [body, code] of [
      ["{nope", "invalid_json"],
      [JSON.stringify({ messages: user, user: "alice" }), "invalid_request"],
      [JSON.stringify({ id: "c", messages: [], user: "alice" }), "invalid_request"],
      [JSON.stringify({ id: "c", messages: user }), "user_required"],
      [JSON.stringify({ id: "c", messages: [{ role: "user", parts: [] }], user: "alice" }), "empty_message"],
      [
        JSON.stringify({ id: "c", messages: [{ role: "assistant", parts: [] }], user: "alice" }),
        "no_user_message",
      ],
    ] as const) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code, message: expect.any(String) } });
    }
    expect((await post(JSON.stringify({ id: "c", messages: user, user: "alice" }), "lk.x.y")).status).toBe(
      401,
    );
    expect(
      (await post(JSON.stringify({ id: "c", messages: user, user: "alice" }), w.tenant.adminKey)).status,
    ).toBe(403);
  });
});
