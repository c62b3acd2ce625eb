import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { bankWorld, CHAT_API, Chat, LANDLORD_IBAN, lattice, PAY, textOf, toolParts } from "./ai-sdk-kit.ts";
import { worldState } from "./demo.ts";
import { display, hubWorld, lit, pendingConsents, ref, script, tool } from "./hub-kit.ts";

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

  it("a new message while a consent is open reports on that request; it is not run and answers nothing", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const [consent] = await pendingConsents(w, sid);
    await chat.sendMessage({ text: "yes" });
    expect(textOf(chat.last)).toMatch(/still waits for your answer; this message was not run/);
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
