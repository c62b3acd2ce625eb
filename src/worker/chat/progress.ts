import type { HubEvent } from "../../runtime/index.ts";
import { inert } from "./render.ts";

/**
 * How a line is shown: `markdown` where the frontend renders it (a reasoning block), `text` where it
 * shows the characters as they are (Open WebUI's status line, where a code span's backticks would
 * stay on screen).
 */
export type ProgressStyle = "markdown" | "text";

/**
 * A query's progress as chat lines, for a stream that shows work before the answer: one line per
 * step started, progress report and step done. Every word is Lattice's; the names a plan or an app
 * chose (tool, app) are set apart from them (code spans in Markdown, quotation marks in text), and a
 * progress report brings only its numbers (an MCP server's message never reaches the hub).
 */
export function progressLine(event: HubEvent, style: ProgressStyle = "markdown"): string | null {
  const d = event.data as {
    kind?: unknown;
    tool?: unknown;
    app?: unknown;
    progress?: unknown;
    total?: unknown;
  };
  const step = d.kind === "qllm" ? "the quarantined model" : named(d.tool, d.app, style);
  switch (event.type) {
    case "planning":
      return "▸ Planning the request…";
    case "planned":
      return "▸ Plan checked against the policy.";
    case "step_started":
      return d.kind === "qllm"
        ? "▸ Reading the answers so far with the quarantined model…"
        : `▸ Calling ${step}…`;
    case "step_progress":
      return `  ${step}: ${amount(d.progress, d.total)}`;
    case "step_finished":
      return d.kind === "qllm" ? "✓ The quarantined model is done." : `✓ ${step} done.`;
    default:
      return null;
  }
}

function named(tool: unknown, app: unknown, style: ProgressStyle): string {
  const set = style === "markdown" ? inert : quotedText;
  const name = typeof tool === "string" ? set(tool) : "a tool";
  return typeof app === "string" ? `${name} (app ${set(app)})` : name;
}

/**
 * A name in plain text: on one line, in quotation marks it cannot close, so it reads as a name and
 * never as the line's own words.
 */
function quotedText(text: string): string {
  const flat = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ")
    .replace(/[“”]/g, '"')
    .trim();
  return `“${flat.length > 80 ? `${flat.slice(0, 79)}…` : flat}”`;
}

/** `40%` (the hub writes a total of 100 only), `2 of 5`, or the bare count when the app gives no total. */
function amount(progress: unknown, total: unknown): string {
  const done = typeof progress === "number" ? format(progress) : "?";
  if (total === 100) return `${done}%`;
  return typeof total === "number" ? `${done} of ${format(total)}` : `${done} so far`;
}

const format = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
