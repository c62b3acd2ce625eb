import { describe, expect, it } from "vitest";
import { type PolicyInput, policyLattices, type StandingRule } from "../../src/policy/index.ts";
import { Gate } from "../../src/runtime/gate.ts";
import type { PlanningSnapshot, Target } from "../../src/runtime/index.ts";
import type { Labeled } from "../../src/runtime/values.ts";
import { entry, policy } from "../policy/fixtures.ts";

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
    const rules = () => [rule({ who: { from: "trusted" } }, { tool: "calendar.invite" })];
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
