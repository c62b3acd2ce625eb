/**
 * A spoke's request for another app (collaboration), under the plan's policy: the runtime's rules
 * alone, each attack with its control (the flow check off, or the plan without the step).
 */
import { describe, expect, it } from "vitest";
import { assess, policyLattices, validatePlan } from "../../src/policy/index.ts";
import {
  assessCollaboration,
  type PlanningSnapshot,
  type RelayInput,
  relayNext,
  shownRequest,
  type Target,
} from "../../src/runtime/index.ts";
import { entry, policy, tinyChecker } from "../policy/fixtures.ts";

const target = (app: string, tool: string, partial: Parameters<typeof entry>[0]): Target => ({
  tool,
  app,
  appId: `app_${app}`,
  functionality: tool.split(".")[1] ?? tool,
  version: 1,
  entry: entry(partial),
  description: `${app}'s own words`,
});
const bank = target("bank", "bank.transfer", {
  irreversible: true,
  clearance: "confidential",
  requestSchema: { type: "object", properties: { to: {}, amount: {} }, additionalProperties: true },
});
const pilot = target("pilot", "pilot.read", { clearance: "confidential" });
const notes = target("notes", "notes.add", { clearance: "internal" });
const snapshot: PlanningSnapshot = {
  mode: "catalog",
  catalog: { "bank.transfer": bank.entry, "pilot.read": pilot.entry, "notes.add": notes.entry },
  targets: { "bank.transfer": [bank], "pilot.read": [pilot], "notes.add": [notes] },
  destinations: { "bank.transfer": ["to"] },
  choices: { "bank.transfer": "bank.transfer", "pilot.read": "pilot.read", "notes.add": "notes.add" },
  artifacts: {},
};
const QUERY = "Summarise my inbox";

function plan(steps: unknown[]) {
  const p = policy({ planning: { mode: "catalog" } });
  const v = validatePlan(
    { steps },
    { policy: p, query: QUERY, catalog: snapshot.catalog, artifacts: {}, checkSchema: tinyChecker },
  );
  if (!v.ok) throw new Error(JSON.stringify(v.details));
  return v.plan;
}
const step = (out: string, tool: string) => ({
  kind: "tool",
  out,
  tool,
  args: {},
  intent: "x",
  semantics: "y",
});
const readOnly = plan([step("mail", "pilot.read")]);

function input(over: Partial<RelayInput> & { onViolation?: "reject" | "ask" } = {}): RelayInput {
  const { onViolation = "ask", ...rest } = over;
  const p = policy({ planning: { mode: "catalog" }, onViolation });
  return {
    policy: p,
    lattices: policyLattices(p),
    snapshot,
    plan: readOnly,
    ifc: true,
    functionality: "bank.transfer",
    asker: { app: "pilot", read: ["its developer's instructions"], carried: ["internal"] },
    request: { to: "ATTACKER-IBAN", amount: 950 },
    ...rest,
  };
}

describe("an agent's request to an irreversible transfer", () => {
  it("is refused under reject: the payee is a value the agent wrote", () => {
    const refused = assessCollaboration(input({ onViolation: "reject" }));
    expect(refused).toHaveProperty("refused");
    expect(JSON.stringify(refused)).toContain("a value the agent wrote");
  });

  it("control: with the flow check off, nothing refuses it", () => {
    expect(assessCollaboration(input({ onViolation: "reject", ifc: false }))).toMatchObject({
      options: [{ tool: "bank.transfer" }],
    });
  });

  it("under ask: a warning, then an endorse consent with the flow, then an irreversible consent, then the relay", () => {
    const first = assessCollaboration(input());
    expect(first).toMatchObject({ assessment: { verdict: "warning" }, scopes: ["once"] });
    expect(JSON.stringify(first)).toContain("a value the agent wrote");
    const endorse = relayNext(input(), bank, new Set());
    expect(endorse).toMatchObject({ next: "ask", kind: "endorse", assessment: { verdict: "warning" } });
    expect(JSON.stringify(endorse)).toContain('\\"to\\" would take a value the agent wrote');
    // A key the entry does not declare is the agent's own text: named as such, never repeated.
    const odd = relayNext(input({ request: { "![x](https://evil.example/)": 1 } }), bank, new Set());
    expect(JSON.stringify(odd)).toContain("an undeclared argument would take");
    expect(JSON.stringify(odd)).not.toContain("evil.example");
    const confirm = relayNext(input(), bank, new Set(["endorse"]));
    expect(confirm).toMatchObject({ next: "ask", kind: "irreversible", assessment: { verdict: "warning" } });
    expect(relayNext(input(), bank, new Set(["endorse", "irreversible"]))).toMatchObject({ next: "relay" });
  });

  it("control: with the flow check off, no endorse consent is asked (only the irreversible one)", () => {
    expect(relayNext(input({ ifc: false }), bank, new Set())).toMatchObject({ kind: "irreversible" });
  });
});

describe("a relayed request above the target's clearance", () => {
  const secret = () => input({ asker: { app: "pilot", read: [], carried: ["secret"] } });

  it("is refused even under ask: clearance is a cap, never endorsable", () => {
    const refused = assessCollaboration(secret());
    expect(refused).toHaveProperty("refused");
    expect(JSON.stringify(refused)).toContain("secret data (cleared for confidential)");
    expect(relayNext(secret(), bank, new Set(["endorse", "irreversible"]))).toMatchObject({
      next: "refused",
    });
  });

  it("control: the same request from an agent that read only internal data reaches the user", () => {
    expect(assessCollaboration(input())).toHaveProperty("options");
  });

  it("takes its label from what the agent read: an unknown level counts as the top", () => {
    const unknown = input({ asker: { app: "pilot", read: [], carried: ["internal", "bogus"] } });
    expect(assessCollaboration(unknown)).toHaveProperty("refused");
  });
});

describe("whether the plan calls the functionality", () => {
  const reasons = (p: ReturnType<typeof plan>) =>
    JSON.stringify(assessCollaboration(input({ functionality: "notes.add", plan: p, request: {} })));

  it("is structural: a display title naming it does not put it in the plan", () => {
    const titled = plan([
      step("mail", "pilot.read"),
      { kind: "display", title: "notes.add", value: { lit: "notes.add" } },
    ]);
    expect(reasons(titled)).toContain("did not call notes.add");
  });

  it("control: a plan with a notes.add step does call it (and still no relay is `expected`)", () => {
    const calls = plan([step("n", "notes.add")]);
    expect(reasons(calls)).not.toContain("did not call notes.add");
    expect(reasons(calls)).toContain('"verdict":"warning"');
  });
});

describe("a request an app's agent wrote", () => {
  it("is never `expected`, even from an agent that read nothing, and says what it read", () => {
    const facts = {
      tool: "ride.book",
      app: "ride.book",
      irreversible: true,
      violations: [],
      origins: ["evilride"],
      inPlan: true,
    };
    expect(assess({ ...facts, requester: { app: "evilride", read: [] } })).toEqual({
      verdict: "warning",
      reasons: ["the request was written by the app evilride's own model, not by the plan"],
    });
    expect(
      assess({ ...facts, requester: { app: "evilride", read: ["its developer's instructions"] } }).reasons,
    ).toContain("the app evilride's model read its developer's instructions");
  });
});

describe("a relayed request in its consent", () => {
  const capped = (cap?: string) => {
    const p = policy({ planning: { mode: "catalog" }, ...(cap && { display: { maxConfidentiality: cap } }) });
    return input({
      policy: p,
      lattices: policyLattices(p),
      asker: { app: "pilot", read: [], carried: ["confidential"] },
    });
  };

  it("is withheld from the frontend above the display cap (the relay still has it)", () => {
    expect(shownRequest(capped("internal"))).toEqual({
      withheld: true,
      label: { confidentiality: "confidential", integrity: "untrusted" },
    });
  });

  it("control: without a cap the user sees the values", () => {
    expect(shownRequest(capped())).toEqual({ to: "ATTACKER-IBAN", amount: 950 });
  });
});
