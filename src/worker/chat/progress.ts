import type { HubEvent } from "../../runtime/index.ts";
import { inert } from "./render.ts";

/**
 * A query's progress as chat lines, for a stream that shows work before the answer: one line per
 * step started, progress report and step done. Every word is Lattice's; the names a plan or an app
 * chose (tool, app) are code spans (`inert`), and a progress report brings only its numbers (an MCP
 * server's message never reaches the hub).
 */
export function progressLine(event: HubEvent): string | null {
  const d = event.data as {
    kind?: unknown;
    tool?: unknown;
    app?: unknown;
    progress?: unknown;
    total?: unknown;
  };
  const step = d.kind === "qllm" ? "the quarantined model" : named(d.tool, d.app);
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

function named(tool: unknown, app: unknown): string {
  const name = typeof tool === "string" ? inert(tool) : "a tool";
  return typeof app === "string" ? `${name} (app ${inert(app)})` : name;
}

/** `40%` (the hub writes a total of 100 only), `2 of 5`, or the bare count when the app gives no total. */
function amount(progress: unknown, total: unknown): string {
  const done = typeof progress === "number" ? format(progress) : "?";
  if (total === 100) return `${done}%`;
  return typeof total === "number" ? `${done} of ${format(total)}` : `${done} so far`;
}

const format = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
