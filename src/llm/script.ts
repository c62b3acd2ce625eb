import type { ChatMessage, CompletionResult, ScriptEntry } from "./types.ts";

/**
 * Scripted answers, shared by the scripted provider and the fake OpenAI-compatible test server:
 * the first entry whose `when` occurs in the last user message (and whose role fits) answers.
 */
export function pickEntry(script: readonly ScriptEntry[], messages: readonly ChatMessage[], role?: string) {
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const text = (lastUser?.content ?? "").toLowerCase();
  return script.find(
    (entry) =>
      (!entry.role || !role || entry.role === role) &&
      (!entry.when || text.includes(entry.when.toLowerCase())),
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
