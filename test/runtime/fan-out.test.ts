/**
 * A tool step with `providers: "all"` (interpreter.ts `fanOut`): the call on every app serving its
 * catalog entry, each through the real gate and under its own journal key; the result keyed by app.
 */
import { describe, expect, it } from "vitest";
import {
  indexQuery,
  type Label,
  type Policy,
  policyLattices,
  validatePlan,
  verifyPlan,
} from "../../src/policy/index.ts";
import { Gate } from "../../src/runtime/gate.ts";
import { type Consent, type PlanningSnapshot, StepFailure, type Target } from "../../src/runtime/index.ts";
import { type Effects, runPlan } from "../../src/runtime/interpreter.ts";
import { display, type Json, lit, plan, ref, tool } from "../policy/builders.ts";
import { entry, policy } from "../policy/fixtures.ts";
import { ALL_DEFENCES, quietPorts } from "./gate-kit.ts";
import { MemoryJournal } from "./kit.ts";

const P: Policy = policy({ planning: { mode: "catalog" } });
const L = policyLattices(P);
const QUERY = "Compare rides from Home to Airport";
const trip = { from: { type: "string" }, to: { type: "string" } };
const requestSchema = { type: "object", properties: trip, additionalProperties: false };

const target = (app: string, confidentiality: string): Target => ({
  tool: "ride.quote",
  app,
  appId: `app_${app}`,
  functionality: "quote",
  version: 1,
  entry: entry({ output: { confidentiality, integrity: "untrusted" }, clearance: "internal", requestSchema }),
  description: `${app}'s own words`,
});
/** Listed out of name order, as the hub never promises; one app cleared and declaring more than the other. */
const TARGETS = [target("swiftride", "internal"), target("cheapcab", "public")];
const SNAPSHOT: PlanningSnapshot = {
  mode: "catalog",
  // The verifier's view: the strictest of the targets (hub: snapshot.ts).
  catalog: {
    "ride.quote": entry({
      output: { confidentiality: "internal", integrity: "untrusted" },
      clearance: "internal",
      requestSchema,
    }),
    "places.home": entry({ output: { confidentiality: "public", integrity: "untrusted" } }),
  },
  targets: {
    "ride.quote": TARGETS,
    "places.home": [{ ...target("places", "public"), tool: "places.home", functionality: "home" }],
  },
  destinations: {},
  choices: { "ride.quote": "ride.quote", "places.home": "places.home" },
  artifacts: {},
};

const quote = (providers: boolean): Json =>
  plan(
    {
      ...tool("q", "ride.quote", { from: lit("Home"), to: lit("Airport") }),
      ...(providers && { providers: "all" }),
    },
    display(ref("q"), "Fares"),
  );

function checked(p: Json, withPolicy: Policy = P) {
  const context = {
    policy: withPolicy,
    query: QUERY,
    catalog: SNAPSHOT.catalog,
    artifacts: {},
    trustedPlanner: true,
  };
  const v = validatePlan(p, context);
  if (!v.ok) throw new Error(JSON.stringify(v.details));
  return { plan: v.plan, verdict: verifyPlan(v.plan, context) };
}

/** The plan run as the hub runs it (advance after advance, one call each), through a real gate. */
async function run(
  p: Json,
  options: {
    journal?: MemoryJournal;
    consents?: Record<string, Consent>;
    answer?: (target: Target, key: string) => unknown;
    advances?: number;
    /** False: the consent defence off (the control). */
    consent?: boolean;
  } = {},
) {
  const { plan: valid } = checked(p);
  const journal = options.journal ?? new MemoryJournal();
  const calls: string[] = [];
  const gated: string[] = [];
  let gate: Gate | undefined;
  let outcome: Awaited<ReturnType<typeof runPlan>> | undefined;
  for (let i = 0; i < (options.advances ?? 10); i++) {
    const g = new Gate({
      queryId: "q1",
      picks: {},
      policy: P,
      lattices: L,
      queryText: "",
      snapshot: SNAPSHOT,
      violations: [],
      defences: {
        ifc: true,
        consent: options.consent ?? true,
        isolation: true,
        visor: { S: true, T: true, I: true },
        pins: true,
        boundary: true,
        namedArtifacts: true,
        ruleScope: true,
        endorseFirst: true,
      },
      ports: {
        standing: async () => null,
        consent: (s) => options.consents?.[s] ?? null,
        authorization: async () => ({ authorized: true as const }),
        audit: () => {},
        standingRules: async () => [],
      },
    });
    gate = g;
    const effects: Effects = {
      route: (step, key) => g.route(step, key),
      gate: (t, key, args, pc) => {
        gated.push(key);
        return g.check(t, key, args, pc);
      },
      tool: async (t, key) => {
        calls.push(key);
        if (t.app === "places") return { value: { address: "1 Home Lane" } };
        return { value: options.answer ? options.answer(t, key) : { fare: t.app === "cheapcab" ? 19 : 31 } };
      },
      qllm: async () => ({}),
      retrieve: async () => {
        throw new Error("no artifacts");
      },
    };
    outcome = await runPlan({
      plan: valid,
      policy: P,
      lattices: L,
      targets: SNAPSHOT.targets,
      query: indexQuery(QUERY, true),
      journal: journal.entries,
      budget: 1,
      isolation: true,
      effects,
      record: journal,
    });
    if (outcome.state !== "yield") break;
  }
  return { outcome: outcome!, journal, calls, gated, asked: gate!.asked };
}

describe('a tool step with providers: "all"', () => {
  it("calls every serving app once, in name order, each under its own key, and keys the result by app", async () => {
    const { outcome, journal, calls, gated, asked } = await run(quote(true));
    expect(outcome.state).toBe("done");
    expect(asked).toBeNull(); // no app_selection: the hub supplies the list
    expect(calls).toEqual(["steps[0]@cheapcab", "steps[0]@swiftride"]);
    // Each through the gate's checks (a call the advance's budget defers is gated again, as a single one is).
    expect([...new Set(gated)]).toEqual(["steps[0]@cheapcab", "steps[0]@swiftride"]);
    const shown = journal.shown[0]!;
    expect(shown.value).toEqual({ cheapcab: { fare: 19 }, swiftride: { fare: 31 } });
    expect(Object.keys(shown.value as object)).toEqual(["cheapcab", "swiftride"]);
    expect(outcome.state === "done" && outcome.results[0]!.result.origins).toEqual(["cheapcab", "swiftride"]);
  });

  it("control: the same step without fan-out asks the user which app serves it", async () => {
    const { outcome, calls, asked } = await run(quote(false));
    expect(outcome.state).toBe("pause");
    expect(calls).toEqual([]);
    expect(asked?.kind).toBe("app_selection");
    expect(asked?.request.options?.map((o) => o.app)).toEqual(["swiftride", "cheapcab"]);
  });

  it("labels the result with the join of every app's answer: the verifier's static label", async () => {
    const { outcome, journal } = await run(quote(true));
    const perApp = (app: string) => journal.entries.get(`steps[0]@${app}`)!.label as Label;
    // Each call carries its own app's level, as a single call would...
    expect(perApp("cheapcab").confidentiality).toBe("public");
    expect(perApp("swiftride").confidentiality).toBe("internal");
    // ...and the comparison the higher one, exactly what was verified.
    const { verdict } = checked(quote(true));
    const label = outcome.state === "done" ? outcome.results[0]!.result.label : null;
    expect(label).toEqual(verdict.labels.get("q"));
    expect(label).toEqual({ confidentiality: "internal", integrity: "untrusted" });
  });

  it("never repeats a call: evicted between the apps, the next advance calls only the one left", async () => {
    const journal = new MemoryJournal();
    const first = await run(quote(true), { journal, advances: 1 });
    expect(first.outcome.state).toBe("yield");
    expect(first.calls).toEqual(["steps[0]@cheapcab"]);
    // A fresh run (the object evicted) over the same journal.
    const rest = await run(quote(true), { journal });
    expect(rest.outcome.state).toBe("done");
    expect(rest.calls).toEqual(["steps[0]@swiftride"]);
    expect(journal.shown[0]!.value).toEqual({ cheapcab: { fare: 19 }, swiftride: { fare: 31 } });
  });

  it("fails the step when one app fails, after the others answered", async () => {
    const { outcome, calls } = await run(quote(true), {
      answer: (t) => {
        // What the hub's spoke port throws for an app's error answer.
        if (t.app === "swiftride") throw new StepFailure("app_error", "ride.quote: the app failed");
        return { fare: 19 };
      },
    });
    expect(calls).toEqual(["steps[0]@cheapcab", "steps[0]@swiftride"]);
    expect(outcome.state === "failed" && outcome.failure.code).toBe("app_error");
    expect(outcome.state === "failed" && outcome.results).toEqual([]); // no partial comparison is bound
  });

  it("asks each app's data_share consent as a single call would, one app at a time", async () => {
    const fromPlaces = plan(tool("home", "places.home", {}), {
      ...tool("q", "ride.quote", { from: ref("home", "address"), to: lit("Airport") }),
      providers: "all",
    });
    const first = await run(fromPlaces);
    expect(first.outcome.state).toBe("pause");
    expect(first.asked?.kind).toBe("data_share");
    expect(first.asked?.subject).toBe("data_share:steps[1]@cheapcab");
    expect(first.asked?.request.to).toBe("cheapcab");
    expect(first.calls).toEqual(["steps[0]"]);
    // CheapCab allowed: it is called, and SwiftRide's own consent is asked before its call.
    const allowed = { status: "allowed", kind: "data_share" } as Consent;
    const second = await run(fromPlaces, {
      journal: first.journal,
      consents: { "data_share:steps[1]@cheapcab": allowed },
    });
    expect(second.outcome.state).toBe("pause");
    expect(second.asked?.subject).toBe("data_share:steps[1]@swiftride");
    expect(second.calls).toEqual(["steps[1]@cheapcab"]);
    // Control: with consents off, both apps get the address without a question.
    const control = await run(fromPlaces, { consent: false });
    expect(control.outcome.state).toBe("done");
    expect(control.calls).toEqual(["steps[0]", "steps[1]@cheapcab", "steps[1]@swiftride"]);
  });

  it("lends each app's call the causes the verifier found for the step (under ask)", async () => {
    const ask = policy({
      planning: { mode: "catalog" },
      onViolation: "ask",
      tools: { "ride.quote": { args: { from: { minIntegrity: "user" } } } },
    });
    const p = plan(tool("home", "places.home", {}), {
      ...tool("q", "ride.quote", { from: ref("home", "address"), to: lit("Airport") }),
      providers: "all",
    });
    const { verdict } = checked(p, ask);
    expect(verdict.violations.map((v) => `${v.path} ${v.argument}`)).toEqual(["steps[1] from"]);
    const g = new Gate({
      queryId: "q1",
      picks: {},
      policy: ask,
      lattices: policyLattices(ask),
      queryText: "",
      snapshot: SNAPSHOT,
      violations: verdict.violations,
      defences: ALL_DEFENCES,
      ports: quietPorts(),
    });
    const untrusted = { confidentiality: "public", integrity: "untrusted" };
    const args = {
      from: { value: "1 Home Lane", label: untrusted, origins: ["places"], provenance: ["app" as const] },
      to: {
        value: "Airport",
        label: { confidentiality: "public", integrity: "user" },
        origins: [],
        provenance: ["user" as const],
      },
    };
    const pc = { label: { confidentiality: "public", integrity: "user" }, origins: [] };
    expect(await g.check(TARGETS[1]!, "steps[1]@cheapcab", args, pc)).toBe("pause");
    expect(g.asked).toMatchObject({ kind: "endorse", subject: "endorse:steps[1]@cheapcab" });
    expect(g.asked!.request.assessment.reasons.join(" ")).toContain(
      "derives from content returned by places.home",
    );
  });
});
