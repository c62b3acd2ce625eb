import { describe, expect, it } from "vitest";
import { checkCall, policyLattices, type StandingRule } from "../../src/policy/index.ts";
import { Gate } from "../../src/runtime/gate.ts";
import type { AppPicks, Consent, PlanningSnapshot, Target } from "../../src/runtime/index.ts";
import type { Labeled } from "../../src/runtime/values.ts";
import { entry, policy } from "../policy/fixtures.ts";
import { ALL_DEFENCES, quietPorts } from "./gate-kit.ts";

const P = policy({ planning: { mode: "catalog" } });
const L = policyLattices(P);
const target = (app: string, tool: string, irreversible = false): Target => ({
  tool,
  app,
  appId: `app_${app}`,
  functionality: tool.split(".")[1] ?? tool,
  version: 1,
  entry: entry({ irreversible, clearance: "confidential" }),
  description: `${app}'s own words`,
});
const SNAPSHOT: PlanningSnapshot = {
  mode: "catalog",
  catalog: { "notes.add": entry(), "ride.book": entry({ irreversible: true }) },
  targets: {
    "notes.add": [target("notes", "notes.add")],
    // Apps that took common words and handles as names, beside one with a name of its own.
    "ride.book": ["here", "home", "noon", "ride", "swiftride"].map((app) => target(app, "ride.book", true)),
  },
  destinations: {},
  choices: { "notes.add": "notes.add", "ride.book": "ride.book" },
  artifacts: {},
};

function gate(
  picks: AppPicks = {},
  consents: Record<string, Consent> = {},
  authorized: (appId: string) => boolean = () => true,
  standing: Record<string, string> = {},
  snapshot: PlanningSnapshot = SNAPSHOT,
) {
  return new Gate({
    queryId: "q1",
    picks,
    policy: P,
    lattices: L,
    queryText: "",
    snapshot,
    violations: [],
    defences: ALL_DEFENCES,
    ports: {
      standing: async (subject) => (subject in standing ? { choice: standing[subject]! } : null),
      standingRules: async () => [],
      consent: (s) => consents[s] ?? null,
      authorization: async (appId) =>
        authorized(appId)
          ? { authorized: true as const }
          : { authorized: false as const, url: `https://as.example/authorize?for=${appId}` },
      audit: () => {},
    },
  });
}
const user = { confidentiality: "public", integrity: "user" };
const arg = (value: unknown, origins: string[] = []): Labeled => ({
  value,
  label: user,
  origins,
  provenance: ["user"],
});
const step = (tool: string) => ({
  kind: "tool" as const,
  out: "x",
  tool,
  args: {},
  intent: "i",
  semantics: "s",
});

describe("the gate", () => {
  it("counts the apps behind the guards as a data share (implicit flow)", async () => {
    const notes = SNAPSHOT.targets["notes.add"]![0]!;
    const plain = gate({});
    expect(await plain.check(notes, "steps[1]", { text: arg("hi") }, { label: user, origins: [] })).toBe(
      "go",
    );
    const guarded = gate({});
    const under = { label: user, origins: ["bank"] }; // inside `if bank.balance > 100`
    expect(await guarded.check(notes, "steps[1].then[0]", { text: arg("hi") }, under)).toBe("pause");
    expect(guarded.asked).toMatchObject({ kind: "data_share", request: { from: ["bank"], to: "notes" } });
  });

  it("asks which app serves a step when several do, listing each in its own words", async () => {
    const g = gate();
    expect(await g.route(step("ride.book"), "steps[0]")).toBeNull();
    expect(g.asked?.request.options).toEqual(
      ["here", "home", "noon", "ride", "swiftride"].map((app) => ({
        tool: `${app}.book`,
        app,
        description: `${app}'s own words`,
      })),
    );
  });

  it("takes the user's answer on replay", async () => {
    const picked = { status: "allowed", choice: "swiftride.book" } as Consent;
    const g = gate({}, { "app_selection:ride.book": picked });
    expect((await g.route(step("ride.book"), "steps[0]"))?.app).toBe("swiftride");
  });
});

describe("the app that serves a step", () => {
  const route = async (g: Gate) => ({ app: (await g.route(step("ride.book"), "steps[0]"))?.app, g });

  it("is the frontend's structured pick, without asking; the gate reads no word of the query", async () => {
    for (const app of ["noon", "ride", "home", "here"]) {
      const { app: chosen, g } = await route(gate({ "ride.book": app }));
      expect(chosen).toBe(app);
      expect(g.asked).toBeNull();
    }
  });

  it("is asked of the user when nothing was picked (control: a pick of noon is taken silently)", async () => {
    const asks = async (picks: AppPicks) => {
      const { app, g } = await route(gate(picks));
      return app === undefined && g.asked?.kind === "app_selection";
    };
    expect(await asks({})).toBe(true);
    // A pick for another choice, or of an app that does not serve this one, chooses nothing here.
    expect(await asks({ "notes.add": "noon" })).toBe(true);
    expect(await asks({ "ride.book": "notes" })).toBe(true);
    // Control: the same assertion fails where the frontend did pick `noon`.
    expect(await asks({ "ride.book": "noon" })).toBe(false);
  });

  it("is the user's standing default when nothing was picked; a pick for this query comes first", async () => {
    const standing = { "app_selection:ride.book": "swiftride.book" };
    expect((await route(gate({}, {}, () => true, standing))).app).toBe("swiftride");
    expect((await route(gate({ "ride.book": "home" }, {}, () => true, standing))).app).toBe("home");
  });

  it("is asked of the user when several apps were picked for one entry (catalog mode)", async () => {
    const { app, g } = await route(gate({ "ride.book": ["noon", "home"] }));
    expect(app).toBeUndefined();
    expect(g.asked?.kind).toBe("app_selection");
  });

  it("in apps mode: a comparison runs each planned step on its picked app, never an irreversible one", async () => {
    const apps = (irreversible: boolean): PlanningSnapshot => ({
      ...SNAPSHOT,
      mode: "apps",
      targets: { "noon.book": ["noon", "swiftride"].map((app) => target(app, `${app}.book`, irreversible)) },
      choices: { "noon.book": "ride.book" },
    });
    const both = { "ride.book": ["swiftride", "noon"] };
    const reversible = gate(both, {}, () => true, {}, apps(false));
    expect((await reversible.route(step("noon.book"), "steps[0]"))?.app).toBe("noon");
    const irreversible = gate(both, {}, () => true, {}, apps(true));
    expect(await irreversible.route(step("noon.book"), "steps[0]")).toBeNull();
    expect(irreversible.asked?.kind).toBe("app_selection");
  });

  it("in apps mode: a pick of the category's app runs it; nothing picked, the user is asked", async () => {
    const apps: PlanningSnapshot = {
      ...SNAPSHOT,
      mode: "apps",
      targets: { "noon.book": ["noon", "swiftride"].map((app) => target(app, `${app}.book`, true)) },
      choices: { "noon.book": "ride.book" },
    };
    const planned = step("noon.book");
    const asked = gate({}, {}, () => true, {}, apps);
    expect(await asked.route(planned, "steps[0]")).toBeNull();
    expect(asked.asked).toMatchObject({ kind: "app_selection", request: { functionality: "ride.book" } });
    const picked = gate({ "ride.book": "swiftride" }, {}, () => true, {}, apps);
    expect((await picked.route(planned, "steps[0]"))?.tool).toBe("swiftride.book");
  });
});

describe("a re-routed step", () => {
  it("is checked against the app the user picked, endorsing nothing the planned one allowed", async () => {
    const ask = policy({ planning: { mode: "catalog" }, onViolation: "ask" });
    const confidential = { confidentiality: "confidential", integrity: "user" };
    const low = { ...target("lowcab", "ride.book"), entry: entry({ clearance: "public" }) };
    const high = target("highcab", "ride.book"); // cleared for confidential
    // The verifier saw a flow it could endorse (against the planned target's clearance).
    const staticViolation = {
      path: "steps[0]",
      stepOut: "x",
      tool: "ride.book",
      argument: "note",
      rule: "confidentiality" as const,
      label: confidential,
      required: { maxConfidentiality: "internal", minIntegrity: "untrusted" },
      sources: [],
      sourcesTruncated: false,
      endorsable: true,
    };
    const gate = (ifc: boolean) =>
      new Gate({
        queryId: "q1",
        picks: {},
        policy: ask,
        lattices: policyLattices(ask),
        queryText: "",
        snapshot: { ...SNAPSHOT, targets: { "ride.book": [high, low] } },
        violations: [staticViolation],
        defences: {
          ifc,
          consent: true,
          isolation: true,
          visor: { S: true, T: true, I: true },
          pins: true,
          boundary: true,
          namedArtifacts: true,
          ruleScope: true,
          endorseFirst: true,
        },
        ports: quietPorts(),
      });
    const args = {
      note: { value: "diagnosis", label: confidential, origins: [], provenance: ["user" as const] },
    };
    const pc = { label: user, origins: [] };
    // Above the picked app's clearance: refused, not endorsable, whatever the static verdict said.
    await expect(gate(true).check(low, "steps[0]", args, pc)).rejects.toMatchObject({
      code: "flow_violation",
    });
    // Control: without the flow check the diagnosis goes to the low-cleared app.
    expect(await gate(false).check(low, "steps[0]", args, pc)).toBe("go");
  });
});

describe("policy rules the gate and the agent loop share", () => {
  it("checkCall: the call itself against the pc, each argument with the pc's confidentiality", () => {
    const findings = checkCall({
      policy: P,
      lattices: L,
      tool: "bank.send",
      entry: entry({ irreversible: true, clearance: "internal" }),
      pc: { confidentiality: "confidential", integrity: "untrusted" },
      args: { to: user, memo: { confidentiality: "secret", integrity: "user" } },
    });
    // Whether it runs was decided on untrusted data (the call); the branch's secret reaches every
    // argument (confidentiality); the values the user gave keep their integrity.
    expect(findings.map((f) => [f.argument, f.rule, f.endorsable])).toEqual([
      [null, "confidentiality", false],
      [null, "integrity", false],
      ["to", "confidentiality", false],
      ["memo", "confidentiality", false],
    ]);
  });

  it("waits on an authorize consent (with the sign-in URL) for an app the user has not authorized", async () => {
    const notes = { ...SNAPSHOT.targets["notes.add"]![0]!, authorize: true as const };
    const pc = { label: user, origins: [] };
    const waiting = gate({}, {}, () => false);
    expect(await waiting.check(notes, "steps[0]", { text: arg("hi") }, pc)).toBe("pause");
    expect(waiting.asked).toMatchObject({
      kind: "authorize",
      subject: "authorize:app_notes",
      request: { to: "notes", authorization: { url: "https://as.example/authorize?for=app_notes" } },
    });
    // Once the spoke holds the user's tokens the call goes on; an app without the flag never asks.
    expect(await gate({}, {}, () => true).check(notes, "steps[0]", { text: arg("hi") }, pc)).toBe("go");
    const plain = SNAPSHOT.targets["notes.add"]![0]!;
    expect(await gate({}, {}, () => false).check(plain, "steps[0]", { text: arg("hi") }, pc)).toBe("go");
    // "Allowed" without signing in: the step fails, it does not call the app without a token.
    const allowed = { status: "allowed", kind: "authorize" } as Consent;
    const unsigned = gate({}, { "authorize:app_notes": allowed }, () => false);
    await expect(unsigned.check(notes, "steps[0]", { text: arg("hi") }, pc)).rejects.toMatchObject({
      code: "authorization_required",
    });
  });
});

describe("deferred findings at the gate", () => {
  const tools = {
    "mail.send": {
      args: {
        to: { role: "destination" as const, match: "trusted" as const },
        body: { role: "payload" as const, sanitise: "no-foreign-references" as const },
      },
    },
  };
  const mail = {
    ...target("mail", "mail.send", true),
    entry: entry({ irreversible: true, clearance: "confidential" }),
  };
  const untrusted = { confidentiality: "internal", integrity: "untrusted" };
  const contacts = {
    name: "contacts",
    value: [{ name: "Dana", email: "dana@corp.example" }],
    label: { confidentiality: "internal", integrity: "user" },
    origins: [],
    provenance: [],
  };
  const mailRule: StandingRule = {
    id: "sr_contacts",
    tool: "mail.send",
    when: { to: { from: "trusted" } },
    origins: null,
    expiresAt: null,
    createdAt: "2026-11-01T00:00:00.000Z",
  };
  const run = async (
    onViolation: "reject" | "ask",
    to: string,
    body: string,
    remedies = true,
    rules: StandingRule[] = [],
    bodyLabel = untrusted,
    queryText = "Mail Dana the summary of my inbox",
    toLabel = untrusted,
  ) => {
    const p = policy({ planning: { mode: "catalog" }, onViolation, tools: remedies ? tools : {} });
    const audits: Array<[string, Record<string, unknown>]> = [];
    const g = new Gate({
      queryId: "q1",
      picks: {},
      policy: p,
      lattices: policyLattices(p),
      queryText,
      snapshot: { ...SNAPSHOT, targets: { "mail.send": [mail] }, destinations: { "mail.send": ["to"] } },
      violations: [],
      defences: ALL_DEFENCES,
      ports: {
        standing: async () => null,
        consent: () => null,
        authorization: async () => ({ authorized: true as const }),
        audit: (type, detail) => audits.push([type, detail]),
        standingRules: async () => rules,
      },
    });
    const args = {
      to: { value: to, label: toLabel, origins: [], provenance: ["app" as const] },
      body: { value: body, label: bodyLabel, origins: [], provenance: ["app" as const] },
    };
    const outcome = await g
      .check(mail, "steps[2]", args, { label: user, origins: [] }, () => [contacts])
      .catch((e: { code: string }) => e.code);
    return { outcome, asked: g.asked?.kind ?? null, audits, assessment: g.asked?.request.assessment };
  };

  it("lets a contact's address and a clean summary through under reject, asking only the irreversible step", async () => {
    const r = await run("reject", "dana@corp.example", "Two invoices, 1,250 EUR in all.");
    expect(r.outcome).toBe("pause");
    expect(r.asked).toBe("irreversible");
    expect(r.audits.map(([type, d]) => [type, d.argument, d.by])).toEqual([
      ["flow_vouched", "to", "match"],
      ["flow_vouched", "body", "sanitise"],
    ]);
    expect(JSON.stringify(r.audits)).not.toContain("dana@corp.example");
  });

  it("refuses the attacker's address or a foreign link under reject, and asks to endorse it under ask", async () => {
    expect((await run("reject", "mark@evil.test", "fine")).outcome).toBe("flow_violation");
    expect((await run("reject", "dana@corp.example", "pay at www.evil.test")).outcome).toBe("flow_violation");
    expect((await run("ask", "mark@evil.test", "fine")).asked).toBe("endorse");
  });

  it("a standing rule for the user's recipients answers for one the user's words name, given the user's words", async () => {
    const said = "Mail dana@corp.example: see you Sunday";
    const r = await run("reject", "dana@corp.example", "See you Sunday.", true, [mailRule], user, said);
    expect(r.outcome).toBe("go");
    expect(r.audits.map(([type]) => type)).toEqual(["flow_vouched", "standing_rule_used"]);
    // A contact content chose among the address book is not the user's words (#43): asked.
    const chosen = await run("reject", "dana@corp.example", "See you Sunday.", true, [mailRule], user);
    expect([chosen.outcome, chosen.asked]).toEqual(["pause", "irreversible"]);
    // Content chose the recipient and wrote the words: the rule does not answer; the user is asked.
    const both = await run("reject", "dana@corp.example", "Two invoices.", true, [mailRule]);
    expect([both.outcome, both.asked]).toEqual(["pause", "irreversible"]);
    // The attacker's address is never matched, so no rule stands in for anything: asked under ask.
    expect((await run("ask", "mark@evil.test", "fine", true, [mailRule])).asked).toBe("endorse");
  });

  it("never assesses a matched recipient or a sanitised body as expected (#43: the cautious user allows expected)", async () => {
    const said = "Mail dana@corp.example: see you Sunday";
    const chosen = await run("reject", "dana@corp.example", "See you Sunday.", true, [], user, said);
    expect(chosen.assessment?.verdict).toBe("warning");
    expect(chosen.assessment?.reasons).toContainEqual(
      expect.stringMatching(/^"to" of mail\.send was chosen by content you read, among \d+ trusted values/),
    );
    const written = await run("reject", "dana@corp.example", "Two invoices.", true, [], untrusted, said);
    expect(written.assessment?.reasons).toContainEqual(
      expect.stringMatching(/^"body" of mail\.send was written from content you read/),
    );
    // Control: the recipient in the user's own label, the words hers: nothing content decided.
    const own = await run("reject", "dana@corp.example", "See you Sunday.", true, [], user, said, user);
    expect(own.assessment).toEqual({ verdict: "expected", reasons: [] });
  });

  it("control: without the remedies even the honest call is refused under reject", async () => {
    expect((await run("reject", "dana@corp.example", "fine", false)).outcome).toBe("flow_violation");
  });
});
