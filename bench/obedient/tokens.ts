/** Token counts of what a model received and returned, with gpt-tokenizer (o200k_base, as GPT-4o counts). */
import { countTokens } from "gpt-tokenizer";

/** A request's input: every message (content and tool calls), the tool definitions, the answer schema. */
export function requestTokens(body: {
  messages: Array<{ content?: unknown; tool_calls?: unknown }>;
  tools?: unknown;
  response_format?: unknown;
}): number {
  const parts: string[] = [];
  for (const m of body.messages) {
    if (typeof m.content === "string") parts.push(m.content);
    if (m.tool_calls) parts.push(JSON.stringify(m.tool_calls));
  }
  if (body.tools) parts.push(JSON.stringify(body.tools));
  if (body.response_format) parts.push(JSON.stringify(body.response_format));
  // About 4 tokens of chat framing per message, as OpenAI's accounting adds.
  return parts.reduce((n, p) => n + countTokens(p), 0) + 4 * body.messages.length;
}

export function answerTokens(text: string): number {
  return text ? countTokens(text) : 0;
}
