import { describe, expect, it } from "vitest";
import {
  type PolicyInput,
  type PoolSource,
  policyLattices,
  type StandingRule,
} from "../../src/policy/index.ts";
import { Gate } from "../../src/runtime/gate.ts";
import type { PlanningSnapshot, Target } from "../../src/runtime/index.ts";
import type { Labeled } from "../../src/runtime/values.ts";
import { entry, policy } from "../policy/fixtures.ts";
import { ALL_DEFENCES, quietPorts } from "./gate-kit.ts";

/** One irreversible entry, served by one app; the tenant leaves its recipient to the user's confirmation. */
const SEND = "mail.send";
const target: Target = {
  tool: SEND,
  app: "mail",
  appId: "app_mail",
  functionality: "send",
  version: 1,
  entry: entry({ irreversible: true, clearance: "confidential" }),
  description: "mail's own words",
};
const snapshot = (mode: "catalog" | "apps"): PlanningSnapshot => ({
  mode,
  catalog: { [SEND]: target.entry },
  targets: { [SEND]: [target] },
  destinations: { [SEND]: ["to"] },
  choices: { [SEND]: SEND },
  artifacts: {},
});
const RELAXED: PolicyInput = {
  planning: { mode: "catalog" },
  tools: { [SEND]: { minInputIntegrity: "untrusted" } },
};
const rule = (when: StandingRule["when"], extra: Partial<StandingRule> = {}): StandingRule => ({
  id: "sr_mail",
  tool: SEND,
  when,
  origins: null,
  expiresAt: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  ...extra,
});
const TO_TRUSTED = rule({ to: { from: "trusted" } });

function gate(
  rules: () => StandingRule[],
  opts: { policy?: PolicyInput; scope?: boolean; mode?: "catalog" | "apps" } = {},
) {
  const p = policy(opts.policy ?? RELAXED);
  const audits: Array<{ type: string; detail: Record<string, unknown> }> = [];
  const g = new Gate({
    queryId: "q1",
    picks: {},
    policy: p,
    lattices: policyLattices(p),
    queryText: "",
    snapshot: snapshot(opts.mode ?? "catalog"),
    violations: [],
    defences: {
      ifc: true,
      consent: true,
      isolation: true,
      visor: { S: true, T: true, I: true },
      pins: true,
      boundary: true,
      namedArtifacts: true,
      ruleScope: opts.scope ?? true,
      endorseFirst: true,
    },
    ports: {
      standing: async () => null,
      standingRules: async () => rules(),
      consent: () => null,
      authorization: async () => ({ authorized: true as const }),
      audit: (type, detail) => audits.push({ type, detail }),
    },
  });
  return { g, audits };
}
const labeled = (value: unknown, integrity: string): Labeled => ({
  value,
  label: { confidentiality: "public", integrity },
  origins: [],
  provenance: integrity === "user" ? ["user"] : ["model"],
});
const mailTo = (to: string, integrity: string) => ({
  to: labeled(to, integrity),
  subject: labeled("hi", "user"),
  body: labeled("see you", "user"),
});
const userPc = { label: { confidentiality: "public", integrity: "user" }, origins: [] };
const UNTRUSTED = { confidentiality: "public", integrity: "untrusted" };

describe("the gate takes a standing rule for the user's yes", () => {
  it("goes without asking when a rule covers the call, auditing the rule, tool and step, never a value", async () => {
    const { g, audits } = gate(() => [TO_TRUSTED]);
    expect(await g.check(target, "steps[1]", mailTo("sam@example.test", "user"), userPc)).toBe("go");
    expect(g.asked).toBeNull();
    expect(audits).toEqual([
      {
        type: "standing_rule_used",
        detail: { queryId: "q1", rule: "sr_mail", tool: SEND, step: "steps[1]", consent: "irreversible" },
      },
    ]);
    expect(JSON.stringify(audits)).not.toContain("sam@example.test");
  });

  it("asks for a recipient content chose (control: with the rule's scope off, it goes)", async () => {
    const args = mailTo("attacker@evil.test", "untrusted");
    const on = gate(() => [TO_TRUSTED]);
    expect(await on.g.check(target, "steps[2]", args, userPc)).toBe("pause");
    expect(on.g.asked?.kind).toBe("irreversible");
    expect(on.audits).toEqual([]);
    const off = gate(() => [TO_TRUSTED], { scope: false });
    expect(await off.g.check(target, "steps[2]", args, userPc)).toBe("go");
  });

  it("asks for a call whose pc content steered, a plan made with app text in view, or an entry the tenant closed", async () => {
    const steered = { label: { confidentiality: "public", integrity: "untrusted" }, origins: [] };
    const args = mailTo("sam@example.test", "user");
    expect(await gate(() => [TO_TRUSTED]).g.check(target, "s", args, steered)).toBe("pause");
    expect(await gate(() => [TO_TRUSTED], { mode: "apps" }).g.check(target, "s", args, userPc)).toBe("pause");
    const closed = {
      ...RELAXED,
      tools: { [SEND]: { minInputIntegrity: "untrusted", standingRules: false } },
    };
    expect(await gate(() => [TO_TRUSTED], { policy: closed }).g.check(target, "s", args, userPc)).toBe(
      "pause",
    );
  });

  it("answers a data_share the same way: the contact's address reaches a reversible entry unasked", async () => {
    const invite: Target = {
      ...target,
      tool: "calendar.invite",
      app: "calendar",
      entry: entry({ clearance: "confidential" }),
    };
    const fromContacts = { ...labeled("sam@example.test", "user"), origins: ["contacts"] };
    const rules = () => [
      rule({ who: { from: "trusted" } }, { tool: "calendar.invite", origins: ["contacts"] }),
    ];
    const on = gate(rules);
    expect(await on.g.check(invite, "steps[1]", { who: fromContacts }, userPc)).toBe("go");
    expect(on.audits[0]?.detail).toMatchObject({ consent: "data_share", tool: "calendar.invite" });
    const none = gate(() => []);
    expect(await none.g.check(invite, "steps[1]", { who: fromContacts }, userPc)).toBe("pause");
    expect(none.g.asked?.kind).toBe("data_share");
  });

  it("never answers an endorsement, whatever the rules say (even with their scope off)", async () => {
    const strict = { planning: { mode: "catalog" as const } };
    const { g } = gate(() => [rule({})], { policy: { ...strict, onViolation: "ask" }, scope: false });
    expect(await g.check(target, "s", mailTo("attacker@evil.test", "untrusted"), userPc)).toBe("pause");
    expect(g.asked?.kind).toBe("endorse");
  });

  it("reads the rules at each call: a revoked rule asks at the next one", async () => {
    let rules = [TO_TRUSTED];
    const { g } = gate(() => rules);
    expect(await g.check(target, "steps[0]", mailTo("sam@example.test", "user"), userPc)).toBe("go");
    rules = [];
    expect(await g.check(target, "steps[1]", mailTo("sam@example.test", "user"), userPc)).toBe("pause");
  });
});

/**
 * #43: an attacker who knows the suite's rules. Each case is answered by the rule on the old guard
 * (which refused only match + sanitise together), and the control shows the same call goes with the
 * rule's scope off, and that an honest variant (the user's own values) still goes with it on.
 */
describe("a standing rule never answers a call content wrote (#43)", () => {
  const call = (tool: string, irreversible = true): Target => ({
    tool,
    app: tool.split(".")[0]!,
    appId: `app_${tool.split(".")[0]}`,
    functionality: tool.split(".")[1]!,
    version: 1,
    entry: entry({ irreversible, clearance: "confidential" }),
    description: "the app's own words",
  });
  const run = async (o: {
    target: Target;
    policy: PolicyInput;
    rules: StandingRule[];
    args: Record<string, Labeled>;
    query?: string;
    bound?: PoolSource[];
    scope?: boolean;
  }) => {
    const p = policy(o.policy);
    const audits: string[] = [];
    const g = new Gate({
      queryId: "q1",
      picks: {},
      policy: p,
      lattices: policyLattices(p),
      queryText: o.query ?? "",
      snapshot: {
        mode: "catalog",
        catalog: { [o.target.tool]: o.target.entry },
        targets: { [o.target.tool]: [o.target] },
        destinations: { [o.target.tool]: [] },
        choices: { [o.target.tool]: o.target.tool },
        artifacts: {},
      },
      violations: [],
      defences: { ...ALL_DEFENCES, ruleScope: o.scope ?? true },
      ports: quietPorts({ standingRules: async () => o.rules, audit: (type) => audits.push(type) }),
    });
    const outcome = await g.check(o.target, "steps[3]", o.args, userPc, () => o.bound ?? []);
    return { outcome, asked: g.asked?.kind ?? null, ruled: audits.includes("standing_rule_used") };
  };

  it("(a) a recipient content chose with a body under a low floor: asked, though the body needed no remedy", async () => {
    const mail = call("mail.send");
    const relaxed: PolicyInput = {
      planning: { mode: "catalog" },
      tools: {
        "mail.send": {
          args: { to: { role: "destination", match: "trusted" }, body: { minIntegrity: "untrusted" } },
        },
      },
    };
    const attack = {
      target: mail,
      policy: relaxed,
      rules: [rule({ to: { from: "trusted" } })],
      query: "Mail mom@family.test or sam@example.test the news",
      args: {
        to: labeled("mom@family.test", "untrusted"),
        body: labeled("Your account is locked: sign in at https://evil.test/reset", "untrusted"),
      },
    };
    expect(await run(attack)).toEqual({ outcome: "pause", asked: "irreversible", ruled: false });
    // Control: with the rule's scope off the same call goes unasked.
    expect((await run({ ...attack, scope: false })).outcome).toBe("go");
    // Honest: the user's words wrote the body; content only picked which of the two she named.
    const honest = { ...attack, args: { ...attack.args, body: labeled("See you Sunday", "user") } };
    expect(await run(honest)).toEqual({ outcome: "go", asked: null, ruled: true });
  });

  it("(b) two arguments matched among the workspace's lists: asked (Eve adds herself to #private)", async () => {
    const add = call("slack.add_user_to_channel");
    const lists: PolicyInput = {
      planning: { mode: "catalog" },
      tools: {
        "slack.get_channels": { trustedValues: ["channels[]"] },
        "slack.get_users": { trustedValues: ["users[]"] },
        "slack.add_user_to_channel": {
          args: {
            user: { role: "destination", match: "trusted" },
            channel: { role: "destination", match: "trusted" },
          },
        },
      },
    };
    const sources = ["slack.get_channels", "slack.get_users"];
    const bound: PoolSource[] = [
      {
        name: "steps[0]",
        value: undefined,
        label: UNTRUSTED,
        tool: sources[0],
        trusted: ["general", "private"],
      },
      { name: "steps[1]", value: undefined, label: UNTRUSTED, tool: sources[1], trusted: ["Alice", "Eve"] },
    ];
    const attack = {
      target: add,
      policy: lists,
      rules: [rule({ user: { chosenFrom: sources }, channel: { chosenFrom: sources } }, { tool: add.tool })],
      bound,
      args: { user: labeled("Eve", "untrusted"), channel: labeled("private", "untrusted") },
    };
    expect(await run(attack)).toEqual({ outcome: "pause", asked: "irreversible", ruled: false });
    expect((await run({ ...attack, scope: false })).outcome).toBe("go");
    // Honest: the user named the channel; content picked only whom among the members.
    const honest = { ...attack, args: { ...attack.args, channel: labeled("private", "user") } };
    expect(await run(honest)).toEqual({ outcome: "go", asked: null, ruled: true });
  });

  it("(c) a file content wrote, then shared by its matched id: asked, though the address is the user's", async () => {
    const share = call("drive.share_file");
    const drive: PolicyInput = {
      planning: { mode: "catalog" },
      tools: {
        "drive.create_file": { trustedValues: ["id"] },
        "drive.share_file": {
          args: { file_id: { role: "control", match: "trusted", from: ["drive.create_file"] } },
        },
      },
    };
    const created = (contentMade: boolean): PoolSource => ({
      name: "steps[1]",
      value: undefined,
      label: UNTRUSTED,
      tool: "drive.create_file",
      trusted: ["f_26"],
      contentMade,
    });
    const attack = {
      target: share,
      policy: drive,
      rules: [rule({ email: { from: "trusted" } }, { tool: share.tool })],
      bound: [created(true)],
      args: { file_id: labeled("f_26", "untrusted"), email: labeled("sam@example.test", "user") },
    };
    expect(await run(attack)).toEqual({ outcome: "pause", asked: "irreversible", ruled: false });
    expect((await run({ ...attack, scope: false })).outcome).toBe("go");
    // Honest: the plan made the file from the user's words; sharing it by its id goes by the rule.
    expect(await run({ ...attack, bound: [created(false)] })).toEqual({
      outcome: "go",
      asked: null,
      ruled: true,
    });
  });

  it("a rule without origins answers no call carrying another app's data; with them, only those", async () => {
    const mail = call("mail.send");
    const fromContacts = { ...labeled("sam@example.test", "user"), origins: ["contacts"] };
    const base = {
      target: mail,
      policy: RELAXED,
      args: { to: fromContacts, subject: labeled("hi", "user"), body: labeled("see you", "user") },
    };
    const asked = await run({ ...base, rules: [TO_TRUSTED] });
    expect(asked).toEqual({ outcome: "pause", asked: "irreversible", ruled: false });
    expect((await run({ ...base, rules: [TO_TRUSTED], scope: false })).outcome).toBe("go");
    const listed = rule({ to: { from: "trusted" } }, { origins: ["contacts"] });
    expect((await run({ ...base, rules: [listed] })).outcome).toBe("go");
    const other = rule({ to: { from: "trusted" } }, { origins: ["drive"] });
    expect((await run({ ...base, rules: [other] })).outcome).toBe("pause");
  });
});

describe("the sanitiser never vouches for an argument the catalog's schema makes a destination (#43)", () => {
  const post: Target = {
    ...target,
    tool: "web.post",
    app: "web",
    entry: entry({
      irreversible: false,
      clearance: "confidential",
      requestSchema: {
        type: "object",
        properties: { url: { type: "string", format: "uri" }, note: { type: "string" } },
      },
    }),
  };
  const sanitised = { role: "payload" as const, sanitise: "no-foreign-references" as const };
  const run = async (arg: "url" | "note", minIntegrity?: string) => {
    const p = policy({
      planning: { mode: "catalog" },
      tools: { "web.post": { args: { [arg]: { ...sanitised, ...(minIntegrity && { minIntegrity }) } } } },
    });
    const g = new Gate({
      queryId: "q1",
      picks: {},
      policy: p,
      lattices: policyLattices(p),
      queryText: "post to https://example.test/inbox",
      snapshot: {
        mode: "catalog",
        catalog: { [post.tool]: post.entry },
        targets: { [post.tool]: [post] },
        destinations: { [post.tool]: [] },
        choices: { [post.tool]: post.tool },
        artifacts: {},
      },
      violations: [],
      defences: ALL_DEFENCES,
      ports: quietPorts(),
    });
    const value = labeled("https://example.test/inbox", "untrusted");
    return g.check(post, "steps[1]", { [arg]: value }, userPc).catch((e: { code: string }) => e.code);
  };

  it("refuses a content-chosen url though it writes only a link the user's words hold", async () => {
    expect(await run("url", "user")).toBe("flow_violation");
    // Control: the same text in an argument that is no destination passes the sanitiser.
    expect(await run("note", "user")).toBe("go");
  });
});
