/** Hub events as lines a person reads, never as step keys and labels. */
import type { LatticeEvent } from "@lattice/client";
import { describe, expect, it } from "vitest";
import { describeEvent } from "../../src/console/browser/event-words.ts";

const label = (integrity: string) => ({ confidentiality: "internal", integrity });
const ev = (type: string, data: Record<string, unknown>) =>
  ({ seq: 1, queryId: "q", type, data, at: "2026-12-03T19:00:00.000Z" }) as LatticeEvent;

describe("events in words", () => {
  it.each([
    [ev("query_started", { text: "Who is my landlord?" }), "Query started"],
    [ev("planning", {}), "Planning the steps"],
    [ev("planned", { attempts: 1, violations: 0 }), "Plan checked and found safe"],
    [ev("planned", { attempts: 2, violations: 1 }), "Plan checked and found safe after 2 attempts"],
    [
      ev("step_started", { key: "steps[0]", kind: "tool", tool: "contacts.lookup", app: "contacts" }),
      "Asking contacts (contacts.lookup)…",
    ],
    [
      ev("step_finished", {
        key: "steps[0]",
        kind: "tool",
        tool: "contacts.lookup",
        app: "contacts",
        label: label("untrusted"),
      }),
      "Asked contacts (contacts.lookup): answered, from contacts (not checked)",
    ],
    [
      ev("step_finished", { key: "steps[1]", kind: "qllm", label: label("untrusted") }),
      "A model read the apps' answers: its reading is not checked",
    ],
    [
      ev("step_progress", {
        key: "steps[0]",
        kind: "tool",
        tool: "everything.long",
        app: "everything",
        progress: 1,
        total: 2,
      }),
      "everything reports progress on everything.long: 1 of 2",
    ],
    [
      ev("consent_requested", { consentId: "c", kind: "irreversible", tool: "mail.send" }),
      "Your consent is asked: an action that cannot be undone (mail.send)",
    ],
    [
      ev("consent_answered", { consentId: "c", decision: "allow", scope: "session" }),
      "You allowed it (for this session)",
    ],
    [ev("consent_answered", { consentId: "c", decision: "deny", scope: "once" }), "You denied it"],
    [
      ev("display", { key: "steps[2]", label: label("untrusted"), untrusted: true }),
      "Shown to you: “Landlord” (from app content, not checked)",
    ],
    [
      ev("display_redacted", { key: "steps[9]", label: label("untrusted"), untrusted: false }),
      "Withheld: a result is above what the display policy shows",
    ],
    [ev("query_finished", { status: "completed" }), "Done"],
    [ev("query_finished", { status: "failed", code: "consent_denied" }), "Failed (consent_denied)"],
    [ev("query_finished", { status: "rejected" }), "Refused: the plan was not safe"],
  ])("%#: says %s", (event, words) => {
    const titleOf = (key: string) => (key === "steps[2]" ? "Landlord" : null);
    const line = describeEvent(event, { titleOf });
    expect(line).toBe(words);
    // No step key or raw label in any line.
    expect(line).not.toMatch(/steps\[|label |\/ untrusted/);
  });
});
