import { describe, expect, it } from "vitest";
import type { ServingAppInfo } from "../../src/contracts.ts";
import { CodedError } from "../../src/result.ts";
import {
  advanceQuery,
  type Consent,
  type ConsentAsk,
  defencesOf,
  loadQuery,
  planQuery,
  type QueryPorts,
  storedContext,
} from "../../src/runtime/index.ts";
import { policy } from "../policy/fixtures.ts";
import { MemoryJournal } from "./kit.ts";

const str = { type: "string" };
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
function app(name: string, functionalities: ServingAppInfo["manifest"]["functionalities"]): ServingAppInfo {
  return {
    appId: `app_${name}`,
    name,
    version: 3,
    clearance: "confidential",
    manifest: {
      name,
      description: `${name} app`,
      version: "1.0.0",
      endpoint: "https://x.test",
      functionalities,
    },
    bindings: {},
  };
}
const fn = (
  name: string,
  request: Record<string, unknown>,
  irreversible = false,
  response: Record<string, unknown> = obj({ ok: { type: "boolean" } }),
) => ({
  name,
  description: name,
  request,
  response,
  irreversible,
  output: { confidentiality: "internal" },
});
const APPS = [
  app("contacts", [fn("lookup", obj({ name: str }, ["name"]), false, obj({ email: str }))]),
  app("mail", [fn("send", obj({ to: str, body: str }, ["to", "body"]), true)]),
];
const QUERY = "Email hello to my accountant";
const PLAN = {
  steps: [
    {
      kind: "tool",
      out: "c",
      tool: "contacts.lookup",
      args: { name: { lit: "accountant" } },
      intent: "i",
      semantics: "s",
    },
    {
      kind: "tool",
      out: "sent",
      tool: "mail.send",
      args: { to: { ref: "c", path: ["email"] }, body: { lit: "hello" } },
      intent: "i",
      semantics: "s",
    },
  ],
};
/** The tenant trusts the contacts app's answers, so its address may be a destination. */
const POLICY_INPUT = {
  tools: { "contacts.lookup": { output: { integrity: "user" } } },
  models: {
    default: { provider: "openai" as const, model: "m", baseURL: "https://llm.test/v1", apiKey: "sk-secret" },
  },
};
const POLICY = policy({ ...POLICY_INPUT, planning: { mode: "apps" } });

/** The tenant admin's catalog for the two apps, each functionality bound to the entry of its name. */
const CATALOG = APPS.flatMap((a) =>
  a.manifest.functionalities.map((f) => ({
    name: `${a.name}.${f.name}`,
    description: f.name,
    request: f.request,
    response: f.response,
    irreversible: f.irreversible,
    output: f.output,
    destinations: [],
  })),
);
const BOUND = APPS.map((a) => ({
  ...a,
  bindings: Object.fromEntries(a.manifest.functionalities.map((f) => [f.name, `${a.name}.${f.name}`])),
}));
const IN_CATALOG = policy({ ...POLICY_INPUT, planning: { mode: "catalog" } });

async function planned(mode: "apps" | "catalog" = "apps") {
  const result = await planQuery({
    query: QUERY,
    earlierQueries: [],
    catalog: CATALOG,
    apps: mode === "catalog" ? BOUND : APPS,
    artifacts: [],
    policy: mode === "catalog" ? IN_CATALOG : POLICY,
    defences: defencesOf({}),
    roles: ["member"],
    model: async () => ({ text: JSON.stringify(PLAN), tokens: 10 }),
  });
  if (result.state !== "running") throw new Error(`not planned: ${JSON.stringify(result)}`);
  return result;
}

describe("the stored query", () => {
  it("keeps no model credential, and loads back as the verified plan and policy", async () => {
    const result = await planned();
    const context = storedContext(result.context);
    expect(context).not.toContain("sk-secret");
    expect(context).not.toContain("llm.test");
    const loaded = loadQuery({ text: QUERY, plan: JSON.stringify(result.plan), context });
    expect(loaded.plan).toEqual(PLAN);
    expect(Object.values(loaded.context.snapshot.targets).map((t) => [t[0]?.appId, t[0]?.version])).toEqual([
      ["app_contacts", 3],
      ["app_mail", 3],
    ]);
    expect(loaded.verdict.ok).toBe(true);
    expect(loaded.context.policy.tools).toEqual(POLICY.tools);
  });

  it("refuses a stored plan that no longer validates, and a damaged context, as corrupt_state", async () => {
    const result = await planned();
    const context = storedContext(result.context);
    const badPlan = JSON.stringify({ steps: [{ kind: "tool", out: "x", tool: "bank.transfer", args: {} }] });
    const codes = [
      () => loadQuery({ text: QUERY, plan: badPlan, context }),
      () =>
        loadQuery({
          text: QUERY,
          plan: JSON.stringify(result.plan),
          context: context.replace('"ifc":true', '"ifc":"yes"'),
        }),
      () => loadQuery({ text: QUERY, plan: "{not json", context }),
      () => loadQuery({ text: QUERY, plan: null, context }),
    ].map((load) => {
      try {
        load();
        return "loaded";
      } catch (error) {
        return error instanceof CodedError ? error.code : "other";
      }
    });
    expect(codes).toEqual(["corrupt_state", "corrupt_state", "corrupt_state", "corrupt_state"]);
  });
});

function ports(
  consents: Map<string, Consent>,
  journal = new MemoryJournal(),
): QueryPorts & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    audit: () => {},
    standing: async () => null,
    standingRules: async () => [],
    consent: (subject) => consents.get(subject) ?? null,
    authorization: async () => ({ authorized: true as const }),
    record: journal,
    tool: async (call) => {
      sent.push({
        tool: call.target.tool,
        appId: call.target.appId,
        version: call.target.version,
        args: call.request,
        trusted: call.trusted,
      });
      return { value: call.target.tool === "contacts.lookup" ? { email: "acc@x.test" } : { ok: true } };
    },
    qllm: async () => ({}),
    retrieve: async () => null,
  };
}

function allowed(ask: ConsentAsk): Consent {
  return {
    ...ask.request,
    id: "con_1",
    grantSubject: ask.grantSubject,
    kind: ask.kind,
    queryId: "q1",
    stepId: ask.stepKey,
    status: "allowed",
    scope: "once",
    choice: null,
    createdAt: "",
    expiresAt: "",
  };
}

/** A planned query, loaded as the hub loads it, stepped with fake ports that remember consents. */
function stepper(result: Awaited<ReturnType<typeof planned>>) {
  const query = loadQuery({
    text: QUERY,
    plan: JSON.stringify(result.plan),
    context: storedContext(result.context),
  });
  const consents = new Map<string, Consent>();
  const journal = new MemoryJournal();
  const p = ports(consents, journal);
  const step = () => advanceQuery({ queryId: "q1", query, journal: journal.entries, ports: p });
  return { consents, p, step };
}

describe("advanceQuery", () => {
  it("in apps mode, warns that the send was planned with app-written text in view", async () => {
    const result = await planned("apps");
    const query = loadQuery({
      text: QUERY,
      plan: JSON.stringify(result.plan),
      context: storedContext(result.context),
    });
    const journal = new MemoryJournal();
    const waiting = await advanceQuery({
      queryId: "q1",
      query,
      journal: journal.entries,
      ports: ports(new Map(), journal),
    });
    expect(waiting).toMatchObject({
      next: "wait",
      ask: { kind: "irreversible", request: { assessment: { verdict: "warning" } } },
    });
    if (waiting.next === "wait")
      expect(waiting.ask?.request.assessment.reasons[0]).toMatch(
        /planned with text written by app developers/,
      );
  });

  it("asks before the irreversible send, then sends once to the pinned version and leaves artifacts", async () => {
    // Catalog mode: the planner read only the admin's catalog, so the send it planned is `expected`.
    const result = await planned("catalog");
    const { consents, p, step } = stepper(result);

    // The lookup, then the gate before the send asks (before the step's budget is even spent).
    const waiting = await step();
    expect(waiting, JSON.stringify(waiting)).toMatchObject({ next: "wait" });
    if (waiting.next !== "wait" || !waiting.ask) throw new Error("expected a consent to ask");
    expect(waiting.ask).toMatchObject({
      kind: "irreversible",
      stepKey: "steps[1]",
      tool: "mail.send",
      request: {
        data: { to: "acc@x.test", body: "hello" },
        scopes: ["once"],
        assessment: { verdict: "expected" },
      },
    });
    expect(p.sent).toHaveLength(1);

    consents.set(waiting.ask.subject, allowed(waiting.ask));
    const done = await step();
    expect(p.sent).toEqual([
      {
        tool: "contacts.lookup",
        appId: "app_contacts",
        version: 3,
        args: { name: "accountant" },
        trusted: ["name"],
      },
      {
        tool: "mail.send",
        appId: "app_mail",
        version: 3,
        args: { to: "acc@x.test", body: "hello" },
        trusted: ["to", "body"],
      },
    ]);
    expect(done.next).toBe("done");
    if (done.next === "done") expect(done.artifacts.map((a) => a.name)).toEqual(["c", "sent"]);
  });

  it("ends the query when the user declines", async () => {
    const result = await planned();
    const { consents, p, step } = stepper(result);
    const waiting = await step();
    if (waiting.next !== "wait" || !waiting.ask) throw new Error("expected a consent to ask");
    consents.set(waiting.ask.subject, { ...allowed(waiting.ask), status: "denied" });
    expect(await step()).toMatchObject({ next: "failed", error: { code: "consent_denied" } });
    expect(p.sent).toHaveLength(1);
  });

  it("without the consent defence (the control) the send goes without asking", async () => {
    const result = await planned();
    const context = storedContext({ ...result.context, defences: defencesOf({ consent: "off" }) });
    const query = loadQuery({ text: QUERY, plan: JSON.stringify(result.plan), context });
    const journal = new MemoryJournal();
    const p = ports(new Map(), journal);
    const step = () => advanceQuery({ queryId: "q1", query, journal: journal.entries, ports: p });
    expect(await step()).toEqual({ next: "continue" }); // the lookup; the send is the next advance's
    expect((await step()).next).toBe("done");
    expect(p.sent).toHaveLength(2);
  });
});
