import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chatSessionId } from "../../src/worker/chat/trusted-headers.ts";
import worker from "../../src/worker/index.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  lit,
  modelLog,
  pendingConsents,
  ref,
  script,
  tool,
} from "./hub-kit.ts";

/**
 * The two chat protocols (OpenAI-compatible, AI SDK UI stream) are encoders of one chat turn
 * (src/worker/chat/turn.ts): one chat is one session whichever carries it, and a request an earlier
 * turn left open is treated alike, whichever protocol the turn after comes in.
 */

const IBAN = "DE89370400440532013000";
const PAY = `Send 40 EUR to ${IBAN} with subject lunch`;
const send = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  worker.fetch(
    new Request(`http://lattice.test${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    env as never,
  );

interface Said {
  sid: string | null;
  text: string;
  lattice: { queryId: string; status: string; earlier?: { queryId: string; status: string } };
  reasoning: string[];
}

const frames = async (res: Response) =>
  (await res.text())
    .split("\n\n")
    .filter((f) => f.startsWith("data: {"))
    .map((f) => JSON.parse(f.slice("data: ".length)) as Record<string, unknown>);

/** One streamed turn as Open WebUI sends it: the chat in its header, the user in the body. */
async function openai(key: string, chat: string, text: string, user = "alice"): Promise<Said> {
  const res = await send(
    "/v1/openai/chat/completions",
    key,
    { model: "lattice", messages: [{ role: "user", content: text }], user, stream: true },
    { "X-OpenWebUI-Chat-Id": chat },
  );
  type Chunk = {
    choices: Array<{ delta: { content?: string; reasoning_content?: string } }>;
    lattice?: Said["lattice"];
  };
  const chunks = (await frames(res)) as unknown as Chunk[];
  return {
    sid: res.headers.get("X-Lattice-Session"),
    text: chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""),
    lattice: chunks.find((c) => c.lattice)!.lattice!,
    reasoning: chunks.flatMap((c) => c.choices[0]?.delta.reasoning_content ?? []),
  };
}

/** One turn as useChat sends it: the chat's id and the user in the body. */
async function aiSdk(key: string, chat: string, text: string, user = "alice"): Promise<Said> {
  const res = await send("/v1/ai-sdk/chat", key, {
    id: chat,
    user,
    messages: [{ role: "user", parts: [{ type: "text", text }] }],
  });
  const chunks = (await frames(res)) as Array<{
    type: string;
    delta?: string;
    messageMetadata?: { lattice: Said["lattice"] };
  }>;
  return {
    sid: res.headers.get("X-Lattice-Session"),
    text: chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta!] : [])).join(""),
    lattice: chunks.find((c) => c.type === "finish")!.messageMetadata!.lattice,
    reasoning: [],
  };
}

async function world() {
  const w = await hubWorld(["contacts", "bank"]);
  await script(w.models.planner, [
    {
      when: "landlord",
      respond: {
        steps: [tool("l", "contacts.lookup", { name: lit("landlord") }), display(ref("l"), "Landlord")],
      },
    },
    {
      when: "send 40",
      respond: {
        steps: [
          tool("paid", "bank.send_money", { recipient: lit(IBAN), amount: lit(40), subject: lit("lunch") }),
          display(ref("paid")),
        ],
      },
    },
  ]);
  return w;
}

const allow = async (w: HubWorld, sid: string, queryId: string) => {
  const consent = (await pendingConsents(w, sid)).find((c) => c.queryId === queryId)!;
  expect((await answer(w, sid, consent.id, { decision: "allow" })).status).toBe(200);
};

describe("one chat turn behind both chat protocols", () => {
  it("one chat is one session, keyed by the deployment's secret, whichever protocol carries it", async () => {
    const w = await world();
    const viaOpenai = await openai(w.frontend, "chat-7", "Who is my landlord?");
    const viaAiSdk = await aiSdk(w.frontend, "chat-7", "Who is my landlord?");
    expect(viaOpenai.sid).toMatch(/^ses_[a-f0-9]{32}$/);
    expect(viaAiSdk.sid).toBe(viaOpenai.sid);
    expect(viaOpenai.sid).toBe(
      await chatSessionId("test-key-secret", w.tenant.tenantId, "alice", { name: "x", value: "chat-7" }),
    );
    // Another user's same chat id, or another chat, is another session in either protocol.
    expect((await aiSdk(w.frontend, "chat-7", "Who is my landlord?", "bob")).sid).not.toBe(viaOpenai.sid);
    expect((await openai(w.frontend, "chat-8", "Who is my landlord?")).sid).not.toBe(viaOpenai.sid);
  });

  it.each([
    ["asked in OpenAI's stream, followed in the AI SDK's", openai, aiSdk],
    ["asked in the AI SDK's stream, followed in OpenAI's", aiSdk, openai],
  ] as const)("one open-turn rule: %s", async (_, ask, next) => {
    const w = await world();
    const asked = await ask(w.frontend, "chat-pay", PAY);
    expect(asked.lattice.status).toBe("awaiting_consent");
    expect(asked.text).toContain("[Review and answer](");

    // While it waits, a new message is not run, whichever protocol brings it.
    const waiting = await next(w.frontend, "chat-pay", "yes");
    expect(waiting.sid).toBe(asked.sid);
    expect(waiting.lattice.queryId).toBe(asked.lattice.queryId);
    expect(waiting.text).toMatch(/still waits for your answer; this message was not run/);
    expect(await modelLog(w.models.planner)).toHaveLength(1);

    // Answered on its page: the next turn says the outcome first, then answers the new message.
    await allow(w, asked.sid!, asked.lattice.queryId);
    const after = await next(w.frontend, "chat-pay", "Who is my landlord?");
    expect(after.lattice.earlier).toEqual({ queryId: asked.lattice.queryId, status: "completed" });
    expect(after.lattice.queryId).not.toBe(asked.lattice.queryId);
    expect(after.lattice.status).toBe("completed");
    expect(after.text).toMatch(/✓ Done: the payment of “40.00” to “DE89370400440532013000” was made\./);
    expect(after.text.indexOf("✓ Done")).toBeLessThan(after.text.indexOf("Landlord"));
    expect(after.text).not.toMatch(/not run/);
    expect(await modelLog(w.models.planner)).toHaveLength(2);
  });

  it("shows the progress an answered request made between turns, not only the new message's", async () => {
    const w = await world();
    const asked = await openai(w.frontend, "chat-progress", PAY);
    await allow(w, asked.sid!, asked.lattice.queryId);
    const after = await openai(w.frontend, "chat-progress", "Who is my landlord?");
    const lines = after.reasoning.map((l) => l.trim());
    // The payment's step, run after the answer, then the new query's own.
    const paid = lines.findIndex((l) => l.includes("bank.send_money") && l.startsWith("✓"));
    const looked = lines.findIndex((l) => l.includes("contacts.lookup") && l.startsWith("✓"));
    expect(paid).toBeGreaterThanOrEqual(0);
    expect(looked).toBeGreaterThan(paid);
  });
});
