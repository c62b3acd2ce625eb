import type { Functionality } from "../apps/manifest.ts";
import { schemaViolations } from "../apps/schemas.ts";
import { isRecord } from "../policy/index.ts";

/**
 * A tool's answer as a functionality's value (pure). A tool with an output schema answers its
 * `structuredContent`, checked against the *pinned* schema; one without answers `{text}`, its text
 * blocks joined (other blocks named, never inlined), and is labeled untrusted by the import.
 * `isError` fails the step; the server's wording stays out of the message.
 */

const MAX_TEXT = 64 * 1024;

export type ToolOutcome =
  | { ok: true; value: unknown }
  | { ok: false; code: "tool_error" | "invalid_response"; message: string; problems?: string[] };

export function toolOutcome(fn: Functionality, result: unknown): ToolOutcome {
  if (!isRecord(result))
    return { ok: false, code: "invalid_response", message: "the tool's result is not an object" };
  if (result.isError === true)
    return { ok: false, code: "tool_error", message: `the tool ${fn.name} reported an error` };
  if (fn.tool?.structured) {
    const value = result.structuredContent;
    // Named by places in the pinned schema: the server's own keys and values stay out.
    const problems = value === undefined ? ["no structuredContent"] : schemaViolations(fn.response, value);
    return problems.length
      ? {
          ok: false,
          code: "invalid_response",
          message: "the tool's answer does not match its pinned output schema",
          problems,
        }
      : { ok: true, value };
  }
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map((block) =>
    isRecord(block) && block.type === "text" && typeof block.text === "string"
      ? block.text
      : `[${isRecord(block) && typeof block.type === "string" ? block.type.slice(0, 32) : "unknown"} content omitted]`,
  );
  const text = parts.join("\n");
  return { ok: true, value: { text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text } };
}
