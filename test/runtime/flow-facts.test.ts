/**
 * A runtime flow violation names what stopped it: the argument (or null, the call itself) and the
 * flow that broke, recorded by the gate and shown through the display boundary only when the
 * argument is a property of the called name's request schema in the query's stored context.
 */
import { describe, expect, it } from "vitest";
import { policyLattices } from "../../src/policy/index.ts";
import { StepFailure } from "../../src/runtime/failure.ts";
import { Gate } from "../../src/runtime/gate.ts";
import { type PlanningSnapshot, planCalls, shownError, type Target } from "../../src/runtime/index.ts";
import { storedContext } from "../../src/runtime/query.ts";
import { entry, policy } from "../policy/fixtures.ts";
import { ALL_DEFENCES, quietPorts } from "./gate-kit.ts";

const P = policy({ planning: { mode: "catalog" }, tools: { "mail.send": { args: { to: {} } } } });
const L = policyLattices(P);
const send = entry({
  irreversible: true,
  clearance: "confidential",
  requestSchema: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } } },
});
const target: Target = {
  tool: "mail.send",
  app: "mail",
  appId: "app_mail",
  functionality: "send",
  version: 1,
  entry: send,
  description: "mail's own words",
};
const SNAPSHOT: PlanningSnapshot = {
  mode: "catalog",
  catalog: { "mail.send": send },
  targets: { "mail.send": [target] },
  destinations: {},
  choices: { "mail.send": "mail.send" },
  artifacts: {},
};
const gate = new Gate({
  queryId: "q1",
  picks: {},
  policy: P,
  queryText: "",
  lattices: L,
  snapshot: SNAPSHOT,
  violations: [],
  defences: ALL_DEFENCES,
  ports: quietPorts(),
});
const labeled = (integrity: string) => ({
  value: "x",
  label: { confidentiality: "public", integrity },
  origins: [],
  provenance: ["app" as const],
});
const plan = { steps: [{ kind: "tool", out: "s", tool: "mail.send", args: {} }] };
// The context as the hub stores it with the query (what the boundary reads the schemas from).
const context = storedContext({ policy: P, snapshot: SNAPSHOT, defences: ALL_DEFENCES });

async function failure(args: Record<string, ReturnType<typeof labeled>>, pc = "user"): Promise<StepFailure> {
  const thrown = await gate
    .check(target, "steps[0]", args, { label: { confidentiality: "public", integrity: pc }, origins: [] })
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(thrown).toBeInstanceOf(StepFailure);
  return thrown as StepFailure;
}

describe("a flow violation's facts", () => {
  it("the gate records the first non-endorsable violation's argument and flow", async () => {
    const e = await failure({ to: labeled("untrusted"), body: labeled("user") });
    expect(e.code).toBe("flow_violation");
    expect(e.facts).toEqual({ step: "steps[0]", tool: "mail.send", argument: "to", flow: "integrity" });
    // A call that depends on an untrusted guard: the call itself (null) is what broke first.
    const guarded = await failure({ to: labeled("user") }, "untrusted");
    expect(guarded.facts).toMatchObject({ argument: null, flow: "integrity" });
  });

  it("shows the argument of the name's request schema, and the flow", async () => {
    const e = await failure({ to: labeled("untrusted") });
    const shown = shownError({ code: e.code, message: e.message, facts: e.facts }, planCalls(plan, context));
    expect(shown.details).toEqual({ step: "steps[0]", tool: "mail.send", argument: "to", flow: "integrity" });
  });

  it("drops an argument no request schema of the plan has, and a flow outside the two", () => {
    const facts = { step: "steps[0]", tool: "mail.send", argument: "cnry_hostile", flow: "cnry" };
    const error = { code: "flow_violation", message: "m", details: facts };
    expect(shownError(error, planCalls(plan, context)).details).toEqual({
      step: "steps[0]",
      tool: "mail.send",
    });
    // Without the stored context (or a plain name set) no argument can be checked, so none shows.
    const toFacts = { ...facts, argument: "to" };
    expect(shownError({ ...error, details: toFacts }, planCalls(plan, "not json")).details).toEqual({
      step: "steps[0]",
      tool: "mail.send",
    });
    expect(shownError({ ...error, details: toFacts }, new Set(["mail.send"])).details).toEqual({
      step: "steps[0]",
      tool: "mail.send",
    });
    // Control: with the boundary off the made-up argument leaves as the runtime holds it.
    expect(JSON.stringify(shownError(error, planCalls(plan, context), false))).toContain("cnry_hostile");
  });
});
