/**
 * The plan view's nested steps (condition branches, loop bodies) and its concrete levels, from a
 * query view as the API sends it: the scripted demo's plans are flat, so the view is given to the
 * page's own renderer.
 */
import { describe, expect, it } from "vitest";
import { signIn, useBrowser, userToken } from "./kit.ts";

const label = (confidentiality: string, integrity: string) => ({ confidentiality, integrity });

const view = {
  id: "q_plan",
  text: "Send each note",
  status: "rejected",
  consents: [],
  display: [{ key: "steps[1].then[0]", redacted: false, label: label("public", "untrusted") }],
  plan: {
    steps: [
      {
        kind: "tool",
        out: "notes",
        tool: "notes.search",
        args: { q: { lit: "x" } },
        intent: "find",
        semantics: "",
      },
      {
        kind: "condition",
        if: { op: "exists", value: { ref: "notes" } },
        // biome-ignore lint/suspicious/noThenProperty: DSL.md names a condition's branches `then` and `else`.
        then: [{ kind: "display", value: { ref: "notes" }, title: "Notes" }],
        else: [{ kind: "display", value: { lit: "none" } }],
      },
      {
        kind: "loop",
        over: { ref: "notes" },
        as: "n",
        body: [
          {
            kind: "tool",
            out: "sent",
            tool: "mail.send",
            args: { to: { lit: "a@b.example" }, body: { ref: "n" } },
            intent: "send",
            semantics: "",
          },
        ],
      },
    ],
  },
  verdict: {
    violations: [
      {
        path: "steps[2].body[0]",
        stepOut: "sent",
        tool: "mail.send",
        argument: "body",
        rule: "integrity",
        label: label("internal", "untrusted"),
        required: { maxConfidentiality: "confidential", minIntegrity: "user" },
      },
    ],
    redactions: [],
  },
  trace: [
    {
      type: "step_finished",
      at: "2026-12-01T00:00:00.000Z",
      data: { key: "steps[0]", label: label("public", "untrusted") },
    },
    {
      type: "display",
      at: "2026-12-01T00:00:00.100Z",
      data: { key: "steps[1].then[0]", label: label("public", "untrusted") },
    },
    {
      type: "step_finished",
      at: "2026-12-01T00:00:00.200Z",
      data: { key: "steps[2]#0.body[0]", label: label("internal", "untrusted") },
    },
    {
      type: "step_finished",
      at: "2026-12-01T00:00:00.300Z",
      data: { key: "steps[2]#1.body[0]", label: label("public", "untrusted") },
    },
  ],
};

describe("the plan view's nested steps", () => {
  const b = useBrowser(async (opened) => signIn(opened, "/console", await userToken("alex")));

  it("walks condition branches and loop bodies under their keys, with levels where the view has them", async () => {
    await b.page.evaluate((v) => {
      const g = globalThis as unknown as {
        L: { renderPlan(list: unknown, q: unknown): void; el(t: string, a: unknown): unknown };
        document: { getElementById(id: string): { appendChild(n: unknown): void } };
      };
      const list = g.L.el("ol", { id: "plan-under-test" });
      g.document.getElementById("query").appendChild(list);
      g.L.renderPlan(list, v);
    }, view);
    const step = (key: string) => b.page.locator(`#plan-under-test li[data-key="${key}"]`);
    expect(await b.page.locator("#plan-under-test > li").count()).toBe(3);
    expect(await step("steps[1].then[0]").textContent()).toContain(
      "display: within the display policy's cap",
    );
    expect(await step("steps[1].else[0]").textContent()).toContain("display: not reached");
    const body = await step("steps[2].body[0]").textContent();
    expect(body).toContain("Label of its value, per pass: #0 internal / untrusted; #1 public / untrusted");
    expect(body).toContain(
      "integrity: not met: argument body is untrusted, below the user the policy asks of it",
    );
    // Without a finding, the rule is in general words, and says why there is no level.
    expect(await step("steps[0]").textContent()).toContain(
      "the app's clearance is set by your admin and is not in this view",
    );
  });
});
