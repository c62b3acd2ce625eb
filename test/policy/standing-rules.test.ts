import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeRule,
  type IsTrusted,
  parsePolicy,
  parseStandingRule,
  type RuleCall,
  type RuleCondition,
  ruleCovers,
  type StandingRule,
  standingRulesAllowed,
} from "../../src/policy/index.ts";

const RUNS = { numRuns: 500 };
const NOW = Date.parse("2026-12-01T12:00:00Z");
const ARGS = ["to", "amount", "subject", "cc"] as const;
const TOOLS = ["mail.send", "bank.send_money", "calendar.create_event"] as const;

const literal = fc.oneof(
  fc.constantFrom("a@b.test", "c@d.test", "DE89370400440532013000", ""),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 200 }),
  fc.double({ min: -5, max: 200, noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
const condition: fc.Arbitrary<RuleCondition> = fc
  .record(
    {
      from: fc.constant("trusted" as const),
      max: fc.integer({ min: -5, max: 200 }),
      oneOf: fc.array(literal, { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: [] },
  )
  .filter((c) => Object.keys(c).length > 0);
const when = fc.dictionary(fc.constantFrom(...ARGS), condition, { maxKeys: 3 });
const expiry = fc.option(
  fc.integer({ min: NOW - 10_000_000, max: NOW + 10_000_000 }).map((t) => new Date(t).toISOString()),
  { nil: null },
);
const ruleArb: fc.Arbitrary<StandingRule> = fc.record({
  id: fc.constant("sr_1"),
  tool: fc.constantFrom(...TOOLS),
  when,
  expiresAt: expiry,
  createdAt: fc.constant("2026-11-01T00:00:00.000Z"),
});
const callArb: fc.Arbitrary<RuleCall> = fc.record({
  tool: fc.constantFrom(...TOOLS),
  args: fc.dictionary(fc.constantFrom(...ARGS), literal, { maxKeys: 4 }),
  violations: fc.nat(2),
  verdict: fc.constantFrom("expected" as const, "warning" as const),
  steered: fc.boolean(),
});
/** A trust predicate as a set of (argument, value) pairs: monotone comparisons are subset checks. */
const trustArb = fc.func(fc.boolean()) as fc.Arbitrary<(arg: string, value: unknown) => boolean>;
const covers = (r: StandingRule, c: RuleCall, t: IsTrusted) => ruleCovers(r, c, t, NOW);

/** A rule and a clean call that meets it: each condition is built around the value the call carries. */
const metCase: fc.Arbitrary<{ rule: StandingRule; call: RuleCall }> = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    values: fc.dictionary(fc.constantFrom(...ARGS), literal, { minKeys: 0, maxKeys: 4 }),
    shape: fc.array(
      fc.record({ from: fc.boolean(), max: fc.option(fc.nat(50)), oneOf: fc.option(fc.array(literal)) }),
      {
        minLength: 4,
        maxLength: 4,
      },
    ),
    constrained: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    future: fc.option(fc.integer({ min: 1, max: 10_000_000 })),
  })
  .map(({ tool, values, shape, constrained, future }) => {
    const when: Record<string, RuleCondition> = {};
    Object.entries(values).forEach(([arg, v], i) => {
      if (!constrained[i]) return;
      const s = shape[i]!;
      const c: { from?: "trusted"; max?: number; oneOf?: unknown[] } = {};
      if (s.from) c.from = "trusted";
      if (s.max !== null && typeof v === "number") c.max = v + s.max;
      if (s.oneOf !== null) c.oneOf = [...s.oneOf, v];
      if (Object.keys(c).length === 0) c.from = "trusted";
      when[arg] = c as RuleCondition;
    });
    return {
      rule: {
        id: "sr_2",
        tool,
        when,
        expiresAt: future === null ? null : new Date(NOW + future).toISOString(),
        createdAt: "",
      },
      call: { tool, args: values, violations: 0, verdict: "expected" as const, steered: false },
    };
  });

describe("ruleCovers: what a standing rule answers for", () => {
  it("never covers another tool, a call with a violation, a warned assessment or a steered pc", () => {
    fc.assert(
      fc.property(ruleArb, callArb, trustArb, (rule, call, trusted) => {
        if (covers(rule, call, trusted)) {
          expect(call.tool).toBe(rule.tool);
          expect(call.violations).toBe(0);
          expect(call.verdict).toBe("expected");
          expect(call.steered).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it("never covers when a constrained argument is absent, a max is exceeded, a value is not among oneOf or isTrusted says no", () => {
    fc.assert(
      fc.property(ruleArb, callArb, trustArb, (rule, call, trusted) => {
        if (!covers(rule, call, trusted)) return;
        for (const [arg, c] of Object.entries(rule.when)) {
          expect(Object.hasOwn(call.args, arg)).toBe(true);
          const v = call.args[arg];
          if (c.max !== undefined) expect(typeof v === "number" && v <= c.max).toBe(true);
          if (c.oneOf) expect(c.oneOf).toContain(v);
          if (c.from) expect(trusted(arg, v)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("never covers once expired", () => {
    fc.assert(
      fc.property(ruleArb, callArb, trustArb, (rule, call, trusted) => {
        if (covers(rule, call, trusted) && rule.expiresAt !== null)
          expect(Date.parse(rule.expiresAt)).toBeGreaterThan(NOW);
      }),
      RUNS,
    );
  });

  it("is monotone: dropping a condition, loosening a max or widening trust never covers less", () => {
    fc.assert(
      fc.property(
        ruleArb,
        callArb,
        trustArb,
        trustArb,
        fc.nat(3),
        fc.nat(50),
        (rule, call, t1, t2, drop, loosen) => {
          if (!covers(rule, call, t1)) return;
          const names = Object.keys(rule.when);
          const dropped = Object.fromEntries(
            names.filter((_, i) => i !== drop).map((n) => [n, rule.when[n]!]),
          );
          expect(covers({ ...rule, when: dropped }, call, t1)).toBe(true);
          const looser = Object.fromEntries(
            names.map((n) => {
              const c = rule.when[n]!;
              return [n, c.max === undefined ? c : { ...c, max: c.max + loosen }];
            }),
          );
          expect(covers({ ...rule, when: looser }, call, t1)).toBe(true);
          expect(covers(rule, call, (a, v) => t1(a, v) || t2(a, v))).toBe(true);
          expect(covers({ ...rule, expiresAt: null }, call, t1)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it("covers a clean call built to meet its conditions, and no longer once one thing is stretched", () => {
    fc.assert(
      fc.property(metCase, fc.nat(), fc.nat(100), (m, pick, extra) => {
        const { rule, call } = m;
        const trustAll: IsTrusted = () => true;
        expect(covers(rule, call, trustAll)).toBe(true);
        expect(covers({ ...rule, tool: "chat.post" }, call, trustAll)).toBe(false);
        expect(covers(rule, { ...call, violations: 1 }, trustAll)).toBe(false);
        expect(covers(rule, { ...call, verdict: "warning" }, trustAll)).toBe(false);
        expect(covers(rule, { ...call, steered: true }, trustAll)).toBe(false);
        expect(covers({ ...rule, expiresAt: new Date(NOW - extra).toISOString() }, call, trustAll)).toBe(
          false,
        );
        const names = Object.keys(rule.when);
        if (!names.length) return;
        const arg = names[pick % names.length]!;
        const c = rule.when[arg]!;
        const { [arg]: _gone, ...rest } = call.args;
        expect(covers(rule, { ...call, args: rest }, trustAll)).toBe(false);
        if (c.from) expect(covers(rule, call, (a) => a !== arg)).toBe(false);
        if (c.max !== undefined)
          expect(covers(rule, { ...call, args: { ...call.args, [arg]: c.max + 1 + extra } }, trustAll)).toBe(
            false,
          );
        if (c.oneOf)
          expect(
            covers(rule, { ...call, args: { ...call.args, [arg]: `${String(call.args[arg])}x` } }, trustAll),
          ).toBe(false);
      }),
      RUNS,
    );
  });

  it("takes a number for max, never a numeric string, NaN or an infinity; oneOf compares exactly", () => {
    const rule: StandingRule = {
      id: "sr",
      tool: "bank.send_money",
      when: { amount: { max: 100 }, recipient: { oneOf: ["DE89370400440532013000"] } },
      expiresAt: null,
      createdAt: "",
    };
    const call = (amount: unknown, recipient: unknown): RuleCall => ({
      tool: "bank.send_money",
      args: { amount, recipient },
      violations: 0,
      verdict: "expected",
      steered: false,
    });
    const yes = () => true;
    expect(covers(rule, call(100, "DE89370400440532013000"), yes)).toBe(true);
    for (const amount of ["50", Number.NaN, Number.NEGATIVE_INFINITY, 100.01, null, [50]])
      expect(covers(rule, call(amount, "DE89370400440532013000"), yes)).toBe(false);
    for (const recipient of [
      "de89370400440532013000",
      " DE89370400440532013000",
      "DE89 3704 0044 0532 0130 00",
    ])
      expect(covers(rule, call(40, recipient), yes)).toBe(false);
  });
});

describe("the rule language is closed", () => {
  it("refuses unknown keys, empty conditions, bad tools and a malformed expiry, naming the field", () => {
    const issues = (input: unknown) => {
      const r = parseStandingRule(input);
      return r.ok ? [] : r.details.map((i) => i.path);
    };
    expect(issues({ tool: "mail.send", when: { to: { from: "trusted" } } })).toEqual([]);
    expect(issues({ tool: "mail.send", when: { to: { from: "trusted", maxx: 3 } } })).toEqual([
      "when.to.maxx",
    ]);
    expect(issues({ tool: "mail.send", when: { to: {} } })).toEqual(["when.to"]);
    expect(issues({ tool: "mail.send", when: { to: { from: "anyone" } } })).toEqual(["when.to.from"]);
    expect(issues({ tool: "mail", when: {} })).toEqual(["tool"]);
    expect(issues({ tool: "mail.send", expiresAt: "tomorrow" })).toEqual(["expiresAt"]);
    expect(issues({ tool: "mail.send", scope: "all" })).toEqual(["scope"]);
    expect(issues(JSON.parse('{"tool":"mail.send","when":{"__proto__":{"max":1}}}'))).toHaveLength(1);
  });

  it("says its scope in words", () => {
    const rule = { tool: "mail.send", when: { to: { from: "trusted" as const } }, expiresAt: null };
    expect(describeRule(rule)).toMatch(/^mail\.send when "to" is a trusted value/);
    expect(
      describeRule({
        tool: "bank.send_money",
        when: { amount: { max: 100 } },
        expiresAt: "2027-01-01T00:00:00Z",
      }),
    ).toMatch(/^bank\.send_money when "amount" is a number at most 100, until 2027-01-01T00:00:00Z/);
  });

  it("lets the tenant turn standing rules off per catalog entry", () => {
    const parsed = parsePolicy({ tools: { "bank.send_money": { standingRules: false } } });
    if (!parsed.ok) throw new Error("policy");
    expect(standingRulesAllowed(parsed.policy, "bank.send_money")).toBe(false);
    expect(standingRulesAllowed(parsed.policy, "mail.send")).toBe(true);
    expect(parsePolicy({ tools: { "mail.send": { standingRules: "no" } } }).ok).toBe(false);
  });
});
