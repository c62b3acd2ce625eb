/** What the AI SDK UI tests share: useChat without React over the Worker, a payment world. */
import { env } from "cloudflare:workers";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import worker from "../../src/worker/index.ts";
import { display, type HubWorld, hubWorld, lit, openSession, ref, script, tool } from "./hub-kit.ts";

export const CHAT_API = "http://lattice.test/v1/ai-sdk/chat";
export const LANDLORD_IBAN = "DE89370400440532013000";
export const lattice = (input: RequestInfo | URL, init?: RequestInit) =>
  worker.fetch(new Request(input, init), env as never);

/** useChat's state without React: what @ai-sdk/react keeps in a hook, kept in an array here. */
export class MemoryState implements ChatState<UIMessage> {
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

export class Chat extends AbstractChat<UIMessage> {
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

export type ToolPart = Extract<UIMessage["parts"][number], { type: "dynamic-tool" }>;
export const toolParts = (m: UIMessage) => m.parts.filter((p): p is ToolPart => p.type === "dynamic-tool");
export const textOf = (m: UIMessage) =>
  m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");

/** The tag with its first character changed (a forged tag of the right length). */
export const flipFirst = (tag: string) => (tag.startsWith("A") ? "B" : "A") + tag.slice(1);

export const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", {
      recipient: lit(LANDLORD_IBAN),
      amount: lit(40),
      subject: lit("lunch"),
    }),
    display(ref("paid"), "Payment"),
  ],
};

export async function bankWorld(): Promise<{ w: HubWorld; sid: string }> {
  const w = await hubWorld(["bank"]);
  await script(w.models.planner, [{ when: "send 40", respond: paymentPlan }]);
  return { w, sid: await openSession(w) };
}
export const PAY = `Send 40 EUR to ${LANDLORD_IBAN} with subject lunch`;
