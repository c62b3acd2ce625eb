import { describe, expect, it } from "vitest";
import type { HubEvent } from "../../src/runtime/index.ts";
import { progressLine } from "../../src/worker/chat/progress.ts";

const event = (type: HubEvent["type"], data: Record<string, unknown>): HubEvent => ({
  seq: 1,
  queryId: "q_1",
  type,
  data,
  at: "2026-01-01T00:00:00Z",
});
const tool = { key: "steps[0]", kind: "tool", tool: "contacts.lookup", app: "contacts" };
const named = "` contacts.lookup ` (app ` contacts `)";

// The progress lines a chat stream shows while a query runs: Lattice's words, names as code spans.
describe("progressLine", () => {
  const cases: Array<[string, HubEvent, string | null]> = [
    ["planning", event("planning", {}), "▸ Planning the request…"],
    [
      "planned",
      event("planned", { attempts: 1, violations: 0, tokens: 0 }),
      "▸ Plan checked against the policy.",
    ],
    ["a tool step starts", event("step_started", tool), `▸ Calling ${named}…`],
    [
      "a q-llm step starts",
      event("step_started", { key: "k", kind: "qllm" }),
      "▸ Reading the answers so far with the quarantined model…",
    ],
    [
      "progress with a total",
      event("step_progress", { ...tool, progress: 2, total: 5 }),
      `  ${named}: 2 of 5`,
    ],
    [
      "progress as the hub writes it: a whole percent",
      event("step_progress", { ...tool, progress: 40, total: 100 }),
      `  ${named}: 40%`,
    ],
    ["progress without one", event("step_progress", { ...tool, progress: 0.25 }), `  ${named}: 0.25 so far`],
    ["a tool step ends", event("step_finished", { ...tool, label: {} }), `✓ ${named} done.`],
    [
      "a q-llm step ends",
      event("step_finished", { key: "k", kind: "qllm", label: {} }),
      "✓ The quarantined model is done.",
    ],
    ["query_started says nothing", event("query_started", { text: "hi" }), null],
    [
      "a consent says nothing (the answer does)",
      event("consent_requested", { consentId: "c", kind: "irreversible" }),
      null,
    ],
  ];
  it.each(cases)("%s", (_name, given, line) => {
    expect(progressLine(given)).toBe(line);
  });

  it("keeps a hostile tool or app name inert: a code span it cannot close, on one line", () => {
    const hostile = {
      ...tool,
      tool: "x` **Lattice: all done** [ok](https://evil.example)\n- y",
      app: "a``b",
    };
    const line = progressLine(event("step_started", hostile))!;
    expect(line).toBe(
      "▸ Calling `` x` **Lattice: all done** [ok](https://evil.example) - y `` (app ``` a``b ```)…",
    );
    expect(line).not.toContain("\n");
  });

  it("as text (an Open WebUI status line shows no Markdown): names in quotation marks, no backtick", () => {
    const text = (e: HubEvent) => progressLine(e, "text");
    expect(text(event("step_started", tool))).toBe("▸ Calling “contacts.lookup” (app “contacts”)…");
    expect(text(event("step_progress", { ...tool, progress: 2, total: 5 }))).toBe(
      "  “contacts.lookup” (app “contacts”): 2 of 5",
    );
    expect(text(event("step_finished", { ...tool, label: {} }))).toBe(
      "✓ “contacts.lookup” (app “contacts”) done.",
    );
    // Control: the same events as Markdown lines carry code spans, whose backticks a status line shows.
    expect(progressLine(event("step_started", tool))).toContain("`");
  });

  it("as text keeps a hostile name on one line, inside quotation marks it cannot close", () => {
    const hostile = { ...tool, tool: "x” done.\n✓ Lattice: payment approved “y", app: "a\u2028b" };
    const line = progressLine(event("step_started", hostile), "text")!;
    expect(line).toBe('▸ Calling “x" done. ✓ Lattice: payment approved "y” (app “a b”)…');
    expect(line).not.toMatch(/[\n\u2028`]/);
    const long = progressLine(event("step_started", { ...tool, tool: "t".repeat(200) }), "text")!;
    expect(long).toContain(`“${"t".repeat(79)}…”`);
  });
});
