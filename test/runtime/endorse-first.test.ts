import { describe, expect, it } from "vitest";
import type { ServingAppInfo } from "../../src/contracts.ts";
import {
  type Advance,
  advanceQuery,
  type Consent,
  type ConsentAsk,
  defencesOf,
  loadQuery,
  planQuery,
  type QueryOptions,
  storedContext,
} from "../../src/runtime/index.ts";
import { cond, type Json, loop } from "../policy/builders.ts";
import { policy } from "../policy/fixtures.ts";
import { MemoryJournal } from "./kit.ts";

/**
 * #43: under `onViolation: "ask"`, a static endorsement on an unconditional step is asked before
 * step 1, naming where its value will come from and showing none; the step's own endorse with the
 * concrete value is still asked. The plan: read the inbox, download the link a mail carries, reply
 * to the mail's sender (an irreversible send whose `to` is content's).
 */

const str = { type: "string" };
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const fn = (name: string, request: Record<string, unknown>, irreversible: boolean, response = obj({})) => ({
  name,
  description: name,
  request,
  response,
  irreversible,
  output: { confidentiality: "internal" },
});
function app(name: string, functionalities: ServingAppInfo["manifest"]["functionalities"]): ServingAppInfo {
  return {
    appId: `app_${name}`,
    name,
    version: 1,
    clearance: "confidential",
    manifest: { name, description: name, version: "1.0.0", endpoint: "https://x.test", functionalities },
    bindings: Object.fromEntries(functionalities.map((f) => [f.name, `${name}.${f.name}`])),
  };
}
const APPS = [
  app("inbox", [fn("read", obj({}), false, obj({ link: str, from: str }))]),
  app("web", [fn("download", obj({ url: str }, ["url"]), false)]),
  app("mail", [fn("send", obj({ to: str, body: str }, ["to", "body"]), true)]),
];
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
const QUERY = "Read my inbox, fetch the link in the mail and reply thanks";
const step = (out: string, tool: string, args: Record<string, Json>): Json => ({
  kind: "tool",
  out,
  tool,
  args,
  intent: "i",
  semantics: "s",
});
const READ = step("m", "inbox.read", {});
const DOWNLOAD = step("file", "web.download", { url: { ref: "m", path: ["link"] } });
const SEND = step("sent", "mail.send", { to: { ref: "m", path: ["from"] }, body: { lit: "thanks" } });
const PLAN = { steps: [READ, DOWNLOAD, SEND] };
/** The control for "unconditional": the same send inside a condition, which may not run. */
const GUARDED = {
  steps: [READ, DOWNLOAD, cond({ op: "exists", value: { ref: "file" } }, [SEND])],
};
/** A step inside a loop runs once per item: it too is asked at the step (each pass) only. */
const LOOPED = {
  steps: [
    READ,
    DOWNLOAD,
    loop({ arr: [{ ref: "m" }] }, "x", [
      step("sent", "mail.send", { to: { ref: "x", path: ["from"] }, body: { lit: "thanks" } }),
    ]),
  ],
};
/**
 * The tenant lowered the download's floor (a reversible fetch) and asks no data_share, so the only
 * consent is the send's endorsement.
 */
const POLICY = policy({
  onViolation: "ask",
  consent: { dataShare: false },
  tools: { "web.download": { args: { url: { minIntegrity: "untrusted" } } } },
  planning: { mode: "catalog" },
  models: { default: { provider: "openai", model: "m", baseURL: "https://llm.test/v1", apiKey: "sk" } },
});

async function query(plan: unknown, options: QueryOptions = {}) {
  const result = await planQuery({
    query: QUERY,
    earlierQueries: [],
    catalog: CATALOG,
    apps: APPS,
    artifacts: [],
    policy: POLICY,
    defences: defencesOf(options),
    roles: ["member"],
    model: async () => ({ text: JSON.stringify(plan), tokens: 10 }),
  });
  if (result.state !== "running") throw new Error(`not planned: ${JSON.stringify(result)}`);
  const loaded = loadQuery({
    text: QUERY,
    plan: JSON.stringify(result.plan),
    context: storedContext(result.context),
  });
  const consents = new Map<string, Consent>();
  const journal = new MemoryJournal();
  const called: string[] = [];
  const advance = (): Promise<Advance> =>
    advanceQuery({
      queryId: "q1",
      query: loaded,
      journal: journal.entries,
      ports: {
        audit: () => {},
        standing: async () => null,
        standingRules: async () => [],
        consent: (subject) => consents.get(subject) ?? null,
        authorization: async () => ({ authorized: true as const }),
        record: journal,
        tool: async (call) => {
          called.push(call.target.tool);
          return {
            value:
              call.target.tool === "inbox.read"
                ? { link: "https://evil.test/payload.exe", from: "attacker@evil.test" }
                : {},
          };
        },
        qllm: async () => ({}),
        retrieve: async () => null,
      },
    });
  /** Advances until the query asks a consent or ends. */
  const run = async (): Promise<Advance> => {
    for (let i = 0; i < 20; i++) {
      const next = await advance();
      if (next.next !== "continue") return next;
    }
    throw new Error("the query never settled");
  };
  const answer = (ask: ConsentAsk, status: "allowed" | "denied") =>
    consents.set(ask.subject, {
      ...ask.request,
      id: `con_${consents.size}`,
      grantSubject: null,
      kind: ask.kind,
      queryId: "q1",
      stepId: ask.stepKey,
      status,
      scope: "once",
      choice: null,
      createdAt: "",
      expiresAt: "",
    });
  return { run, answer, called };
}

function asked(advance: Advance): ConsentAsk {
  if (advance.next !== "wait" || !advance.ask) throw new Error(`expected an ask: ${JSON.stringify(advance)}`);
  return advance.ask;
}

describe("a static endorsement on an unconditional step, asked first (#43)", () => {
  it("is asked before step 1, naming where the value will come from and showing none", async () => {
    const q = await query(PLAN);
    const ask = asked(await q.run());
    expect(q.called).toEqual([]);
    expect(ask).toMatchObject({
      kind: "endorse_plan",
      stepKey: "steps[2]",
      subject: "endorse_plan:steps[2]",
      grantSubject: null,
      tool: "mail.send",
      request: {
        functionality: "mail.send",
        scopes: ["once"],
        assessment: { verdict: "warning" },
        data: {
          step: "steps[2]",
          planned: [
            {
              argument: "to",
              rules: ["integrity"],
              from: [{ kind: "tool", path: "steps[0]", tool: "inbox.read" }],
            },
          ],
        },
      },
    });
    expect(ask.request.view?.fields).toMatchObject([
      { name: "to", value: null, withheld: false, sources: [{ kind: "app" }], highlight: true },
    ]);
    expect(ask.request.view?.reason).toMatch(/before anything runs/);
    // No concrete value exists yet: the attacker's address is nowhere in what is asked.
    expect(JSON.stringify(ask)).not.toContain("evil.test");
  });

  it("denied: the query fails with consent_denied and nothing was called", async () => {
    const q = await query(PLAN);
    q.answer(asked(await q.run()), "denied");
    expect(await q.run()).toMatchObject({ next: "failed", error: { code: "consent_denied" } });
    expect(q.called).toEqual([]);
  });

  it("allowed: the steps run, and the step's own endorse with the concrete value is still asked", async () => {
    const q = await query(PLAN);
    q.answer(asked(await q.run()), "allowed");
    const own = asked(await q.run());
    expect(q.called).toEqual(["inbox.read", "web.download"]);
    expect(own).toMatchObject({
      kind: "endorse",
      stepKey: "steps[2]",
      subject: "endorse:steps[2]",
      request: { data: { to: "attacker@evil.test", body: "thanks" } },
    });
    q.answer(own, "allowed");
    expect((await q.run()).next).toBe("done");
    expect(q.called).toEqual(["inbox.read", "web.download", "mail.send"]);
  });

  it("the control, switched off: the step's consent is denied after the attacker's file downloaded", async () => {
    const q = await query(PLAN, { endorseFirst: "off" });
    const own = asked(await q.run());
    expect(own.subject).toBe("endorse:steps[2]");
    q.answer(own, "denied");
    expect(await q.run()).toMatchObject({ next: "failed", error: { code: "consent_denied" } });
    expect(q.called).toEqual(["inbox.read", "web.download"]);
  });

  it("a step inside a condition is not unconditional: asked at the step only", async () => {
    const q = await query(GUARDED);
    const own = asked(await q.run());
    expect(own.subject).toBe("endorse:steps[2].then[0]");
    expect(q.called).toEqual(["inbox.read", "web.download"]);
  });

  it("a step inside a loop is not unconditional either: asked at the step's pass only", async () => {
    const q = await query(LOOPED);
    const own = asked(await q.run());
    expect(own.subject).toBe("endorse:steps[2]#0.body[0]");
    expect(q.called).toEqual(["inbox.read", "web.download"]);
  });
});
