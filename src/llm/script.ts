import type { ChatMessage, CompletionResult, ScriptEntry } from "./types.ts";

/**
 * Scripted answers, shared by the scripted provider and the fake OpenAI-compatible test server:
 * the first entry whose `when` occurs in the latest input — the last user message or tool result,
 * so a tool-calling loop can be scripted turn by turn — and whose role fits, answers.
 */
export function pickEntry(script: readonly ScriptEntry[], messages: readonly ChatMessage[], role?: string) {
  const latest = [...messages].reverse().find((m) => m.role === "user" || m.role === "tool");
  const text = (latest?.content ?? "").toLowerCase();
  const all = messages
    .map((m) => m.content ?? "")
    .join("\n")
    .toLowerCase();
  return script.find(
    (entry) =>
      (!entry.role || !role || entry.role === role) &&
      (!entry.when || text.includes(entry.when.toLowerCase())) &&
      (!entry.seen || all.includes(entry.seen.toLowerCase())),
  );
}

export function scriptedAnswer(entry: ScriptEntry, model: string): CompletionResult {
  const text =
    entry.respond === undefined
      ? ""
      : typeof entry.respond === "string"
        ? entry.respond
        : JSON.stringify(entry.respond);
  const toolCalls = (entry.toolCalls ?? []).map((call, i) => ({
    id: `call_${i}_${call.name}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
  return { text, toolCalls, usage: { inputTokens: 0, outputTokens: 0 }, model };
}
