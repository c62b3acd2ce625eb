/**
 * The app-call port (app-call.ts): one call shape for plan steps and relays, the catalog schemas it
 * holds both to, the settings it sends, the trace it keeps, and how a step's failure reads.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent, SpokeCall, SpokeResult } from "../../src/contracts.ts";
import { policyLattices, type SemanticException, type VisorCheck } from "../../src/policy/index.ts";
import {
  type AppCallFailure,
  callApp,
  relayCall,
  relayedLevel,
  spokeCallOf,
  stepCall,
  stepFailure,
  traceEvents,
} from "../../src/runtime/app-call.ts";
import { defencesOf, type Target } from "../../src/runtime/index.ts";
import { entry, policy } from "../policy/fixtures.ts";

const requestSchema = {
  type: "object",
  properties: { from: { type: "string", minLength: 1 }, to: { type: "string" } },
  required: ["from", "to"],
  additionalProperties: false,
};
const response = {
  type: "object",
  properties: { fare: { type: "number" } },
  required: ["fare"],
};
const target: Target = {
  tool: "ride.quote",
  app: "swiftride",
  appId: "app_swiftride",
  functionality: "quote",
  version: 3,
  entry: entry({ clearance: "confidential", requestSchema }),
  description: "SwiftRide's own words",
  response,
};
const snapshot = { mode: "catalog" as const, destinations: { "ride.quote": ["to"] } };
const labels = { trusted: ["from"], carries: "internal", mayRead: ["public", "internal"] };
const scope = {
  tenantId: "t1",
  userId: "alice",
  sessionId: "ses_1",
  queryId: "q_1",
  remember: true,
  policy: policy({ selfCorrection: 1, limits: { appTimeoutMs: 4321, modelTimeoutMs: 8765 } }),
  defences: defencesOf({}),
};
const request = { from: "Home", to: "Airport" };
const ids = { callId: "call_1", idempotencyKey: "key_1" };
const step = stepCall(snapshot, target, "steps[0]", request, labels);
const relay = relayCall(snapshot, target, "con_1", request, "confidential");

/** A spoke that answers `result`, and everything the port did. */
function io(result: SpokeResult) {
  const sent: SpokeCall[] = [];
  const digested: string[] = [];
  const emitted: Array<{ type: string; data: Record<string, unknown> }> = [];
  return {
    sent,
    digested,
    emitted,
    send: async (call: SpokeCall) => {
      sent.push(call);
      return result;
    },
    callId: () => "call_1",
    digest: async (text: string) => {
      digested.push(text);
      return `digest(${text})`;
    },
    emit: (type: string, data: Record<string, unknown>) => emitted.push({ type, data }),
  };
}
const rule = (type: VisorCheck, rationale: string): SemanticException => ({
  type,
  rationale,
  constraint: "the rule's constraint",
  allowedGoal: "the user's goal",
});
const answered = (value: unknown, more: Partial<SpokeResult> = {}): SpokeResult =>
  ({ ok: true, value, appVersion: 3, ...more }) as SpokeResult;

describe("the calls a step and a relay make", () => {
  it.each([
    ["a step in catalog mode", step, requestSchema],
    ["a step in apps mode", stepCall({ ...snapshot, mode: "apps" }, target, "k", request, labels), null],
    ["a relay in catalog mode", relay, requestSchema],
    [
      "a relay in apps mode",
      relayCall({ destinations: {} }, target, "con_1", request, "internal"),
      requestSchema,
    ],
  ])("%s is held to the schema the hub checks", (_, call, schema) => {
    // A step in apps mode meets the app's own schema in its spoke; an agent's request is checked before it leaves.
    expect(call.requestSchema).toEqual(schema);
  });

  it("a relay's request is the agent's: no argument is trusted, no memory is given", () => {
    expect(relay).toMatchObject({ trusted: [], memory: { carries: "confidential", mayRead: [] } });
    expect(step).toMatchObject({
      trusted: ["from"],
      memory: { carries: "internal", mayRead: ["public", "internal"] },
    });
  });

  it.each([
    ["step", step],
    ["relay", relay],
  ] as const)("a %s's spoke call carries the tenant's limits and the agent settings", (_, call) => {
    const sent = spokeCallOf(scope, call, ids);
    expect(sent).toMatchObject({
      tenantId: "t1",
      userId: "alice",
      appId: "app_swiftride",
      functionality: "quote",
      appVersion: 3,
      request,
      sessionId: "ses_1",
      checkPins: true,
      remember: true,
      limits: { timeoutMs: 4321 },
      memory: call.memory,
      agent: {
        modelTimeoutMs: 8765,
        selfCorrection: 1,
        checks: { S: true, T: true, I: true },
        trustedArgs: call.trusted,
        destinations: ["to"],
      },
    });
  });

  it("only a step's agent gets a line back to the hub: a relayed agent cannot relay on", () => {
    expect(spokeCallOf(scope, step, ids).agent?.collaboration).toEqual({
      sessionId: "ses_1",
      queryId: "q_1",
      stepKey: "steps[0]",
    });
    expect(spokeCallOf(scope, relay, ids).agent).not.toHaveProperty("collaboration");
  });

  it("the query's controls reach the spoke: pins, visor checks, a private session", () => {
    const control = { ...scope, remember: false, defences: defencesOf({ pins: "off", visorOff: "T" }) };
    for (const call of [step, relay]) {
      const sent = spokeCallOf(control, call, ids);
      expect(sent).toMatchObject({ checkPins: false, remember: false, agent: { checks: { T: false } } });
    }
  });

  it.each([
    ["step", step, "ses_1:q_1:steps[0]"],
    ["relay", relay, "ses_1:con_1"],
  ] as const)("a %s's idempotency key is stable across its retries", async (_, call, source) => {
    const port = io(answered({ fare: 12 }));
    await callApp(scope, call, port);
    expect(port.digested).toEqual([source]);
    expect(port.sent[0]?.idempotencyKey).toBe(`digest(${source})`);
    expect(port.sent[0]?.callId).toBe("call_1");
  });
});

describe("callApp", () => {
  it.each([
    ["a step", step],
    ["a relay", relay],
  ] as const)(
    "refuses %s whose request breaks the entry's schema before anything leaves",
    async (_, call) => {
      const port = io(answered({ fare: 12 }));
      const outcome = await callApp(scope, { ...call, request: { from: "", to: "Airport", extra: 1 } }, port);
      expect(outcome).toMatchObject({ ok: false, at: "request", code: "invalid_request" });
      expect((outcome as AppCallFailure).problems?.length).toBeGreaterThan(0);
      expect(port.sent).toEqual([]);
    },
  );

  it("passes the spoke's failure on with its code, schema places and visor rule", async () => {
    const refused: SpokeResult = {
      ok: false,
      code: "visor_refused",
      message: "the visor refused send_mail (T)",
      rule: "T",
      problems: ["#/properties/to"],
    };
    const outcome = await callApp(scope, step, io(refused));
    expect(outcome).toEqual({
      ok: false,
      at: "app",
      code: "visor_refused",
      message: "the visor refused send_mail (T)",
      rule: "T",
      problems: ["#/properties/to"],
    });
  });

  it("refuses an answer that breaks the entry's response schema (the app ran)", async () => {
    const outcome = await callApp(scope, relay, io(answered({ fare: "free" })));
    expect(outcome).toMatchObject({ ok: false, at: "response", code: "invalid_response" });
  });

  it("answers with what the agent read, nothing read when the spoke says nothing", async () => {
    expect(await callApp(scope, step, io(answered({ fare: 12 })))).toEqual({
      ok: true,
      value: { fare: 12 },
      readUntrusted: false,
      relayed: [],
      remembered: [],
    });
    const agentic = answered(
      { fare: 12 },
      { readUntrusted: true, relayed: ["secret"], remembered: ["internal"] },
    );
    expect(await callApp(scope, relay, io(agentic))).toMatchObject({
      readUntrusted: true,
      relayed: ["secret"],
      remembered: ["internal"],
    });
  });

  it("traces the agent's visor exceptions under the call's key, whether the call failed or not", async () => {
    const events: AgentEvent[] = [
      { type: "tool_call", tool: "search_inbox", args: { query: "x" } },
      { type: "visor_exception", tool: "send_mail", args: { to: "eve@x.test" }, exception: rule("T", "r") },
    ];
    const results: SpokeResult[] = [
      { ok: false, code: "visor_refused", message: "m", events },
      answered({ fare: 12 }, { events }),
    ];
    for (const result of results) {
      for (const [call, key] of [
        [step, "steps[0]"],
        [relay, "collaboration:con_1"],
      ] as const) {
        const port = io(result);
        await callApp(scope, call, port);
        expect(port.emitted).toEqual([
          { type: "visor_exception", data: { key, tool: "send_mail", exception: { type: "T" } } },
        ]);
      }
    }
  });
});

describe("traceEvents", () => {
  const exception = rule("I", "the agent's words");
  const events: AgentEvent[] = [{ type: "visor_exception", tool: "pay", args: { iban: "DE00" }, exception }];

  it("names the rule and the tool, never the call's arguments or the rule's wording", () => {
    const [event] = traceEvents(scope, step, events);
    expect(event).toEqual({
      type: "visor_exception",
      data: { key: "steps[0]", tool: "pay", exception: { type: "I" } },
    });
    expect(JSON.stringify(event)).not.toContain("DE00");
    expect(JSON.stringify(event)).not.toContain("the agent's words");
  });

  it("control: with the boundary off, the event goes whole", () => {
    const [event] = traceEvents({ defences: defencesOf({ boundary: "off" }) }, step, events);
    expect(event?.data).toMatchObject({ args: { iban: "DE00" }, rationale: exception });
  });
});

describe("stepFailure", () => {
  const failure = (f: Omit<AppCallFailure, "ok">): AppCallFailure => ({ ok: false, ...f });
  it.each([
    [
      failure({ at: "request", code: "invalid_request", message: "m", problems: ["#/required"] }),
      "invalid_request",
      "ride.quote: the request breaks the catalog entry's schema",
      { step: "steps[0]", tool: "ride.quote" },
    ],
    [
      failure({ at: "response", code: "invalid_response", message: "m", problems: ["#/required"] }),
      "invalid_response",
      "ride.quote: swiftride's answer breaks the catalog entry's schema",
      { step: "steps[0]", tool: "ride.quote" },
    ],
    [
      failure({ at: "app", code: "visor_refused", message: "the visor refused pay (I)", rule: "I" }),
      "visor_refused",
      "ride.quote: the visor refused pay (I)",
      { step: "steps[0]", tool: "ride.quote", rule: "I" },
    ],
    [
      failure({ at: "app", code: "app_timeout", message: "late" }),
      "app_timeout",
      "ride.quote: late",
      { step: "steps[0]", tool: "ride.quote" },
    ],
  ])("%#: fails the step as %s", (f, code, message, facts) => {
    const e = stepFailure(step, f);
    expect({ code: e.code, message: e.message, facts: e.facts, details: e.details }).toEqual({
      code,
      message,
      facts,
      details: f.problems,
    });
  });
});

describe("relayedLevel", () => {
  const l = policyLattices(policy());
  const answer = (relayed: string[], remembered: string[] = []) => ({
    value: null,
    readUntrusted: true,
    relayed,
    remembered,
  });
  it.each([
    [[], [], "internal"],
    [["public"], [], "internal"],
    [["confidential"], [], "confidential"],
    [[], ["confidential"], "confidential"],
    [["a-level-nobody-knows"], [], l.confidentiality.top],
  ])("a relayed answer read %j (memory %j) carries %s", (relayed, remembered, level) => {
    expect(relayedLevel(l, target, answer(relayed, remembered))).toBe(level);
  });
});
