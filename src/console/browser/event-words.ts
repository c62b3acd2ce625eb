/**
 * A hub event as a line a person reads ("Asked contacts (contacts.lookup): answered, not checked"),
 * never as `Step steps[0] done, label …`. Pure: the chat's live list and its Node tests use it.
 * App names and tool names are the catalog's and the admin's; no app- or model-written text is put
 * in these lines, so a line is all Lattice's words.
 */
import type { LatticeEvent } from "@lattice/client";
import { KIND, SCOPE, trustWords } from "./words.ts";

/** What the query view adds: a shown value's title (a display step's key → its title). */
export interface EventContext {
  titleOf?(key: string): string | null;
}

export function describeEvent(e: LatticeEvent, ctx: EventContext = {}): string {
  switch (e.type) {
    case "query_started":
      return "Query started";
    case "planning":
      return "Planning the steps";
    case "planned": {
      const n = e.data.attempts;
      return typeof n === "number" && n > 1
        ? `Plan checked and found safe after ${n} attempts`
        : "Plan checked and found safe";
    }
    case "step_started":
      return e.data.kind === "tool"
        ? `Asking ${e.data.app ?? "an app"}${e.data.tool ? ` (${e.data.tool})` : ""}…`
        : "A model without tools reads the apps' answers…";
    case "step_finished": {
      const trust = trustWords(e.data.label);
      if (e.data.kind === "qllm") return `A model read the apps' answers: its reading is ${trust}`;
      const app = e.data.app ?? "an app";
      return `Asked ${app}${e.data.tool ? ` (${e.data.tool})` : ""}: answered, from ${app} (${trust})`;
    }
    case "step_progress": {
      const of = e.data.total ? ` of ${e.data.total}` : "";
      return `${e.data.app ?? "An app"} reports progress${e.data.tool ? ` on ${e.data.tool}` : ""}: ${e.data.progress}${of}`;
    }
    case "consent_requested":
      return `Your consent is asked: ${KIND[e.data.kind].toLowerCase()}${e.data.tool ? ` (${e.data.tool})` : ""}`;
    case "consent_answered":
      return e.data.decision === "allow"
        ? `You allowed it (${SCOPE[e.data.scope].toLowerCase()})`
        : "You denied it";
    case "display":
    case "display_redacted": {
      const title = ctx.titleOf?.(e.data.key) ?? null;
      const what = title ? `“${title}”` : "a result";
      return e.type === "display"
        ? `Shown to you: ${what}${e.data.untrusted ? " (from app content, not checked)" : ""}`
        : `Withheld: ${what} is above what the display policy shows`;
    }
    case "visor_exception":
      return `Stopped a call to ${e.data.tool}: it broke a rule for the app`;
    case "collaboration_relayed":
      return e.data.ok ? `Passed the request on to ${e.data.tool}` : `The request to ${e.data.tool} failed`;
    case "query_finished":
      return e.data.status === "completed"
        ? "Done"
        : e.data.status === "rejected"
          ? "Refused: the plan was not safe"
          : `Failed${e.data.code ? ` (${e.data.code})` : ""}`;
  }
}
