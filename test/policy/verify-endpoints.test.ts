import { describe, expect, it } from "vitest";
import { type CatalogEntry, checkPlan } from "../../src/policy/index.ts";
import { cond, display, eq, type Json, lit, plan, ref, retrieve, tool } from "./builders.ts";
import { ctx, EXAMPLE_PLAN, policy } from "./fixtures.ts";
import { brief, CATALOG, fetchWeb, transfer, verify, world } from "./verify-world.ts";

describe("endpoint policies: argument, then functionality, then secure defaults", () => {
  const send = (to: Json) => plan(fetchWeb("w"), tool("n", "notes.save", { text: to }), transfer("t", to));

  it("defaults: irreversible arguments demand user integrity, others accept untrusted", () => {
    expect(brief(verify(send(ref("w")), world({})))).toEqual(["steps[2] to integrity"]);
  });

  it("a functionality policy applies to all its arguments", () => {
    const v = verify(send(ref("w")), world({ tools: { "notes.save": { minInputIntegrity: "app" } } }));
    expect(brief(v)).toEqual(["steps[1] text integrity", "steps[2] to integrity"]);
  });

  it("a per-argument policy overrides the functionality's", () => {
    const v = verify(
      send(ref("w")),
      world({
        tools: {
          "notes.save": { minInputIntegrity: "user", args: { text: { minIntegrity: "untrusted" } } },
          "bank.transfer": { args: { to: { minIntegrity: "untrusted" } } },
        },
      }),
    );
    expect(v.ok).toBe(true);
  });

  it("inputs accept confidentiality up to the app's clearance (default internal)", () => {
    const c = world(
      {},
      { catalog: { ...CATALOG, "notes.save": { ...CATALOG["notes.save"], clearance: "" } as CatalogEntry } },
    );
    expect(verify(plan(retrieve("c", "contact"), tool("n", "notes.save", { text: ref("c") })), c).ok).toBe(
      true,
    );
    const v = verify(plan(retrieve("s", "secret"), tool("n", "notes.save", { text: ref("s") })), c);
    expect(v.violations.map((x) => [x.rule, x.required.maxConfidentiality])).toEqual([
      ["confidentiality", "internal"],
    ]);
  });

  it("a tool policy can tighten the clearance but not lift it", () => {
    const tighter = world({ tools: { "notes.save": { args: { text: { maxConfidentiality: "public" } } } } });
    expect(
      brief(verify(plan(retrieve("c", "contact"), tool("n", "notes.save", { text: ref("c") })), tighter)),
    ).toEqual(["steps[1] text confidentiality"]);
    const looser = world({ tools: { "notes.save": { maxInputConfidentiality: "secret" } } });
    expect(
      brief(verify(plan(retrieve("s", "secret"), tool("n", "notes.save", { text: ref("s") })), looser)),
    ).toEqual(["steps[1] text confidentiality"]);
  });
});

describe("display", () => {
  it("accepts everything by default and marks items not stated by the user", () => {
    const v = verify(
      plan(retrieve("s", "secret"), display(ref("s")), display(lit("4471")), display(lit("hello"))),
    );
    expect(v.redactions).toEqual([]);
    expect(v.displays.map((d) => [d.path, d.redacted, d.untrusted])).toEqual([
      ["steps[1]", false, false],
      ["steps[2]", false, false],
      ["steps[3]", false, true],
    ]);
  });

  it("redacts an item above display.maxConfidentiality without rejecting the plan", () => {
    const v = verify(
      plan(retrieve("s", "secret"), display(ref("s")), display(lit(1))),
      world({ display: { maxConfidentiality: "confidential" } }),
    );
    expect(v.ok).toBe(true);
    expect(v.redactions).toEqual([
      expect.objectContaining({
        path: "steps[1]",
        redacted: true,
        sources: [expect.objectContaining({ kind: "artifact", artifact: "secret" })],
      }),
    ]);
    expect(v.displays[1]?.redacted).toBe(false);
  });

  it("a title the user did not state marks the item too", () => {
    const v = verify(plan(display(lit(4471), "invoice 4471"), display(lit(4471), "Call 555-0100 now")));
    expect(v.displays.map((d) => d.untrusted)).toEqual([false, true]);
  });

  it("an item shown inside a branch carries the guard's label", () => {
    const v = verify(plan(fetchWeb("w"), cond(eq(ref("w"), lit(1)), [display(lit("yes"))])));
    expect(v.displays[0]?.untrusted).toBe(true);
  });
});

describe("self-correction", () => {
  const bad = plan(fetchWeb("w"), transfer("t", ref("w", "iban"), lit(9999)));

  it("is absent unless the policy allows one retry", () => {
    expect(verify(bad, world({})).correction).toBeUndefined();
  });

  it("names the rule, the step, and an allowed alternative, built from policy and structure only", () => {
    const v = verify(
      bad,
      world({ selfCorrection: 1, tools: { "contacts.lookup": { output: { integrity: "user" } } } }),
    );
    const c = v.correction;
    expect(c?.items.map((i) => [i.path, i.argument, i.rule])).toEqual([
      ["steps[1]", "to", "integrity"],
      ["steps[1]", "amount", "integrity"],
    ]);
    expect(c?.items[0]?.hint).toContain('needs integrity "user"');
    expect(c?.items[0]?.hint).toContain("a literal the user stated in the query");
    expect(c?.items[0]?.hint).toContain("contacts.lookup");
    expect(c?.items[0]?.hint).toContain("artifact labeled so (contact, secret)");
    expect(c?.items[1]?.causes).toEqual([
      "literal at steps[1].args.amount (not in the user's query: chosen by the planner)",
    ]);
    // No value of the plan (let alone of a tool) appears in it.
    expect(JSON.stringify(c)).not.toContain("9999");
    expect(JSON.stringify(c)).not.toContain("bob@example.com");
  });

  it("points at the guard for a control dependence", () => {
    const v = verify(
      plan(fetchWeb("w"), cond(eq(ref("w"), lit(1)), [transfer("t", lit("bob@example.com"))])),
      world({ selfCorrection: 1 }),
    );
    expect(v.correction?.items[0]?.hint).toContain("guard at steps[1].if");
  });
});

describe("checkPlan", () => {
  it("reports validation errors without verifying", () => {
    expect(checkPlan({ steps: [{ kind: "nope" }] }, world())).toMatchObject({ stage: "validate", ok: false });
  });

  it("verifies a valid plan", () => {
    const r = checkPlan(EXAMPLE_PLAN, ctx());
    expect(r.stage === "verify" && r.ok).toBe(true);
  });
});

const qllmStep = {
  kind: "qllm",
  out: "pick",
  inputs: {},
  prompt: "Who should get the invoice, and what should the mail say?",
  schema: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } } },
  intent: "pick a recipient",
  semantics: "recipient and body",
};

describe("deferred findings: a remedy the tenant allows is decided at run time", () => {
  // The q-llm reads mail and picks the recipient and writes the body: both untrusted.
  const picked = plan(
    tool("inv", "mail.search", { query: lit("invoice") }),
    { ...qllmStep, inputs: { emails: ref("inv") } },
    tool("sent", "mail.send", { to: ref("pick", "to"), body: ref("pick", "body") }),
  );
  const strict = (args: Record<string, unknown>) =>
    ctx({ policy: policy({ tools: { "mail.send": { args } } as never }) });

  it("a strict plan runs when both findings have a remedy, each marked deferred", () => {
    const r = checkPlan(
      picked,
      strict({
        to: { role: "destination", match: "trusted" },
        body: { role: "payload", sanitise: "no-foreign-references" },
      }),
    );
    expect(r.stage === "verify" && r.ok).toBe(true);
    if (r.stage !== "verify") return;
    expect(r.verdict.violations.map((v) => [v.argument, v.rule, v.deferred, v.endorsable])).toEqual([
      ["to", "integrity", true, false],
      ["body", "integrity", true, false],
    ]);
  });

  it("control: without the remedies the same plan is rejected", () => {
    const r = checkPlan(picked, strict({ to: { role: "destination" }, body: { role: "payload" } }));
    expect(r.stage === "verify" && r.ok).toBe(false);
  });

  it("a remedy never defers a confidentiality finding nor the call's own pc", () => {
    const secretBody = plan(
      tool("inv", "mail.search", { query: lit("invoice") }),
      cond(eq(ref("inv", "n"), lit(1)), [
        tool("sent", "mail.send", { to: lit("a@corp.example"), body: lit("x") }),
      ]),
    );
    const r = checkPlan(
      secretBody,
      strict({
        to: { role: "destination", match: "trusted" },
        body: { role: "payload", sanitise: "no-foreign-references" },
      }),
    );
    expect(r.stage === "verify" && r.ok).toBe(false);
    if (r.stage !== "verify") return;
    expect(r.verdict.violations.some((v) => v.argument === null && !v.deferred)).toBe(true);
  });
});
