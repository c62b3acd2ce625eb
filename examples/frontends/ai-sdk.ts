/**
 * The AI SDK UI message stream against `npm start`, read as `useChat` reads it: the demo query's
 * consent arrives as a tool approval with the hub's assessment; approving continues the message.
 * Run: npx node examples/frontends/ai-sdk.ts (this example approves itself; useChat's UI would ask).
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { DEMO_QUERY, demoEnv } from "./demo-env.ts";

const { api, key } = demoEnv();
// The chat's id names its Lattice session (per user): the approval must come back in the same chat.
const chatId = `example-${Date.now()}`;
const transport = new DefaultChatTransport({
  api: `${api}/v1/ai-sdk/chat`,
  headers: { Authorization: `Bearer ${key}` },
  body: { user: "example-user" },
});
const send = async (messages: UIMessage[], message?: UIMessage) => {
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: "submit-message",
    messageId: message?.id,
    abortSignal: undefined,
  });
  let last = message;
  for await (const m of readUIMessageStream({ stream, ...(message && { message }) })) last = m;
  return last!;
};

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: DEMO_QUERY }] };
const reply = await send([user]);
for (const part of reply.parts) {
  if (part.type === "text") console.log(part.text);
  if (part.type === "dynamic-tool") console.log(`tool ${part.toolName}: ${part.state}`);
}
const asking = reply.parts.find((p) => p.type === "dynamic-tool" && p.state === "approval-requested");
if (asking?.type === "dynamic-tool" && asking.state === "approval-requested") {
  console.log(`approval asked: ${asking.approval.requestReason ?? ""}`);
  const answered: UIMessage = {
    ...reply,
    parts: reply.parts.map((p) =>
      p === asking
        ? { ...asking, state: "approval-responded", approval: { ...asking.approval, approved: true } }
        : p,
    ),
  };
  const done = await send([user, answered], answered);
  console.log(done.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).at(-1));
  console.log(`status: ${(done.metadata as { lattice?: { status?: string } } | undefined)?.lattice?.status}`);
}
