import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ArgStanding,
  describeRule,
  parsePolicy,
  parseStandingRule,
  type RuleCall,
  type RuleCondition,
  ruleCovers,
  type StandingRule,
  standingRulesAllowed,
  unaskedRefusal,
} from "../../src/policy/index.ts";

const RUNS = { numRuns: 500 };
const NOW = Date.parse("2026-12-01T12:00:00Z");
const ARGS = ["to", "amount", "subject", "cc"] as const;
const TOOLS = ["mail.send", "bank.send_money", "calendar.create_event"] as const;
const SOURCES = ["contacts.search", "bank.payees"] as const;
const APPS = ["contacts", "bank", "drive", "artifacts"] as const;

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
      min: fc.integer({ min: -5, max: 50 }),
      max: fc.integer({ min: 50, max: 200 }),
      oneOf: fc.array(literal, { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: [] },
  )
  .chain((c) =>
    c.from
      ? fc.constant(c)
      : fc
          .option(fc.subarray([...SOURCES], { minLength: 1 }), { nil: undefined })
          .map((chosenFrom) => (chosenFrom ? { ...c, chosenFrom } : c)),
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
  origins: fc.option(fc.subarray([...APPS], { minLength: 1 }), { nil: null }),
  expiresAt: expiry,
  createdAt: fc.constant("2026-11-01T00:00:00.000Z"),
});
const standingArb: fc.Arbitrary<ArgStanding> = fc.oneof(
  fc.constant({ by: "top" as const }),
  fc.constant({ by: "content" as const }),
  fc.record({
    by: fc.constant("match" as const),
    origins: fc.subarray(["query", ...SOURCES, null], { minLength: 1 }),
    contentMade: fc.boolean(),
  }),
);
const callArb: fc.Arbitrary<RuleCall> = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    args: fc.dictionary(fc.constantFrom(...ARGS), literal, { maxKeys: 4 }),
    standings: fc.array(standingArb, { minLength: 4, maxLength: 4 }),
    origins: fc.subarray([...APPS]),
    violations: fc.nat(2),
    verdict: fc.constantFrom("expected" as const, "warning" as const),
    steered: fc.boolean(),
    destinations: fc.subarray([...ARGS]),
  })
  .map(({ standings, ...call }) => ({
    ...call,
    standing: Object.fromEntries(Object.keys(call.args).map((name, i) => [name, standings[i]!])),
  }));
const covers = (r: StandingRule, c: RuleCall) => ruleCovers(r, c, NOW);
const TOP: ArgStanding = { by: "top" };
const matched = (...origins: (string | null)[]): ArgStanding => ({
  by: "match",
  origins,
  contentMade: false,
});
const userWords = (standing: ArgStanding) =>
  standing.by === "top" || (standing.by === "match" && standing.origins.every((o) => o === "query"));

/** A rule and a clean call that meets it: each condition is built around the value the call carries. */
const metCase: fc.Arbitrary<{ rule: StandingRule; call: RuleCall }> = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    values: fc.dictionary(fc.constantFrom(...ARGS), literal, { minKeys: 0, maxKeys: 4 }),
    shape: fc.array(
      fc.record({
        from: fc.boolean(),
        min: fc.option(fc.nat(50)),
        max: fc.option(fc.nat(50)),
        oneOf: fc.option(fc.array(literal)),
      }),
      { minLength: 4, maxLength: 4 },
    ),
    constrained: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    origins: fc.subarray([...APPS]),
    future: fc.option(fc.integer({ min: 1, max: 10_000_000 })),
  })
  .map(({ tool, values, shape, constrained, origins, future }) => {
    const when: Record<string, RuleCondition> = {};
    Object.entries(values).forEach(([arg, v], i) => {
      if (!constrained[i]) return;
      const s = shape[i]!;
      const c: { from?: "trusted"; min?: number; max?: number; oneOf?: unknown[] } = {};
      if (s.from) c.from = "trusted";
      if (s.min !== null && typeof v === "number") c.min = v - s.min;
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
        origins: origins.length ? origins : null,
        expiresAt: future === null ? null : new Date(NOW + future).toISOString(),
        createdAt: "",
      },
      call: {
        tool,
        args: values,
        standing: Object.fromEntries(Object.keys(values).map((name) => [name, TOP])),
        destinations: Object.keys(values),
        origins,
        violations: 0,
        verdict: "expected" as const,
        steered: false,
      },
    };
  });

describe("ruleCovers: what a standing rule answers for", () => {
  it("never covers another tool, a violation, a warned assessment, a steered pc, or data from an origin it does not list", () => {
    fc.assert(
      fc.property(ruleArb, callArb, (rule, call) => {
        if (!covers(rule, call)) return;
        expect(call.tool).toBe(rule.tool);
        expect(call.violations).toBe(0);
        expect(call.verdict).toBe("expected");
        expect(call.steered).toBe(false);
        for (const o of call.origins) expect(rule.origins ?? []).toContain(o);
      }),
      RUNS,
    );
  });

  it("never covers a call content wrote: every argument at the top but at most one clean match", () => {
    fc.assert(
      fc.property(ruleArb, callArb, (rule, call) => {
        if (!covers(rule, call)) return;
        const standings = Object.keys(call.args).map((name) => call.standing[name]);
        expect(standings.every((s) => s !== undefined && s.by !== "content")).toBe(true);
        const matches = standings.filter((s) => s?.by === "match");
        expect(matches.length).toBeLessThanOrEqual(1);
        expect(matches.every((s) => s?.by === "match" && !s.contentMade)).toBe(true);
        expect(unaskedRefusal(true, call.standing)).toBeNull();
      }),
      RUNS,
    );
  });

  it("never covers when a constrained argument is absent, out of its bounds, not among oneOf, or chosen from elsewhere", () => {
    fc.assert(
      fc.property(ruleArb, callArb, (rule, call) => {
        if (!covers(rule, call)) return;
        for (const [arg, c] of Object.entries(rule.when)) {
          expect(Object.hasOwn(call.args, arg)).toBe(true);
          const v = call.args[arg];
          const s = call.standing[arg]!;
          if (c.min !== undefined) expect(typeof v === "number" && v >= c.min).toBe(true);
          if (c.max !== undefined) expect(typeof v === "number" && v <= c.max).toBe(true);
          if (c.oneOf) expect(c.oneOf).toContain(v);
          if (c.from) expect(userWords(s)).toBe(true);
          if (c.chosenFrom && s.by === "match")
            for (const o of s.origins) expect(["query", ...c.chosenFrom]).toContain(o);
        }
      }),
      RUNS,
    );
  });

  it("never covers once expired", () => {
    fc.assert(
      fc.property(ruleArb, callArb, (rule, call) => {
        if (covers(rule, call) && rule.expiresAt !== null)
          expect(Date.parse(rule.expiresAt)).toBeGreaterThan(NOW);
      }),
      RUNS,
    );
  });

  it("is monotone: dropping a condition, loosening a bound or listing more origins never covers less", () => {
    fc.assert(
      fc.property(ruleArb, callArb, fc.nat(3), fc.nat(50), (rule, call, drop, loosen) => {
        if (!covers(rule, call)) return;
        const names = Object.keys(rule.when);
        const dropped = Object.fromEntries(names.filter((_, i) => i !== drop).map((n) => [n, rule.when[n]!]));
        expect(covers({ ...rule, when: dropped }, call)).toBe(true);
        const looser = Object.fromEntries(
          names.map((n) => {
            const c = rule.when[n]!;
            return [
              n,
              {
                ...c,
                ...(c.max === undefined ? {} : { max: c.max + loosen }),
                ...(c.min === undefined ? {} : { min: c.min - loosen }),
              },
            ];
          }),
        );
        expect(covers({ ...rule, when: looser }, call)).toBe(true);
        expect(covers({ ...rule, origins: [...APPS] }, call)).toBe(true);
        expect(covers({ ...rule, expiresAt: null }, call)).toBe(true);
      }),
      RUNS,
    );
  });

  it("covers a clean call built to meet its conditions, and no longer once one thing is stretched", () => {
    fc.assert(
      fc.property(metCase, fc.nat(), fc.nat(100), (m, pick, extra) => {
        const { rule, call } = m;
        expect(covers(rule, call)).toBe(true);
        expect(covers({ ...rule, tool: "chat.post" }, call)).toBe(false);
        expect(covers(rule, { ...call, violations: 1 })).toBe(false);
        expect(covers(rule, { ...call, verdict: "warning" })).toBe(false);
        expect(covers(rule, { ...call, steered: true })).toBe(false);
        expect(covers(rule, { ...call, origins: [...call.origins, "web"] })).toBe(false);
        expect(covers({ ...rule, expiresAt: new Date(NOW - extra).toISOString() }, call)).toBe(false);
        const names = Object.keys(call.args);
        if (!names.length) return;
        const any = names[pick % names.length]!;
        // Content wrote one argument, or made the record it names: no rule answers, whatever it says.
        expect(covers(rule, { ...call, standing: { ...call.standing, [any]: { by: "content" } } })).toBe(
          false,
        );
        const made: ArgStanding = { by: "match", origins: ["query"], contentMade: true };
        expect(covers(rule, { ...call, standing: { ...call.standing, [any]: made } })).toBe(false);
        const other = names[(pick + 1) % names.length]!;
        if (other !== any) {
          const two = { ...call.standing, [any]: matched("query"), [other]: matched("query") };
          expect(covers(rule, { ...call, standing: two })).toBe(false);
        }
        const constrained = Object.keys(rule.when);
        if (!constrained.length) return;
        const arg = constrained[pick % constrained.length]!;
        const c = rule.when[arg]!;
        const { [arg]: _gone, ...rest } = call.args;
        expect(covers(rule, { ...call, args: rest })).toBe(false);
        if (c.from) {
          const steered = { ...call.standing, [arg]: matched(SOURCES[0]) };
          expect(covers(rule, { ...call, standing: steered })).toBe(false);
        }
        if (c.max !== undefined)
          expect(covers(rule, { ...call, args: { ...call.args, [arg]: c.max + 1 + extra } })).toBe(false);
        if (c.min !== undefined)
          expect(covers(rule, { ...call, args: { ...call.args, [arg]: c.min - 1 - extra } })).toBe(false);
        if (c.oneOf)
          expect(covers(rule, { ...call, args: { ...call.args, [arg]: `${String(call.args[arg])}x` } })).toBe(
            false,
          );
      }),
      RUNS,
    );
  });

  it("takes a number for min and max, never a numeric string, NaN or an infinity; oneOf compares exactly", () => {
    const rule: StandingRule = {
      id: "sr",
      tool: "bank.send_money",
      when: { amount: { min: 0, max: 100 }, recipient: { oneOf: ["DE89370400440532013000"] } },
      origins: null,
      expiresAt: null,
      createdAt: "",
    };
    const call = (amount: unknown, recipient: unknown): RuleCall => ({
      tool: "bank.send_money",
      args: { amount, recipient },
      standing: { amount: TOP, recipient: TOP },
      destinations: ["recipient"],
      origins: [],
      violations: 0,
      verdict: "expected",
      steered: false,
    });
    expect(covers(rule, call(100, "DE89370400440532013000"))).toBe(true);
    expect(covers(rule, call(0, "DE89370400440532013000"))).toBe(true);
    for (const amount of ["50", Number.NaN, Number.NEGATIVE_INFINITY, 100.01, -1_000_000, null, [50]])
      expect(covers(rule, call(amount, "DE89370400440532013000"))).toBe(false);
    // Control (#43 L4): a ceiling alone covers −1,000,000.
    const ceiling = { ...rule, when: { ...rule.when, amount: { max: 100 } } };
    expect(covers(ceiling, call(-1_000_000, "DE89370400440532013000"))).toBe(true);
    for (const recipient of [
      "de89370400440532013000",
      " DE89370400440532013000",
      "DE89 3704 0044 0532 0130 00",
    ])
      expect(covers(rule, call(40, recipient))).toBe(false);
  });

  it("origins: artifacts covers each saved artifact by id, never the apps its data was kept from", () => {
    const rule = (origins: string[]): StandingRule => ({
      id: "sr",
      tool: "mail.send",
      when: { to: { from: "trusted" } },
      origins,
      expiresAt: null,
      createdAt: "",
    });
    const call = (origins: string[]): RuleCall => ({
      tool: "mail.send",
      args: { to: "sam@example.test" },
      standing: { to: TOP },
      destinations: ["to"],
      origins,
      violations: 0,
      verdict: "expected",
      steered: false,
    });
    expect(covers(rule(["artifacts"]), call(["artifact:art_1"]))).toBe(true);
    expect(covers(rule(["artifacts", "bank"]), call(["artifact:art_1", "bank"]))).toBe(true);
    // The bank's data kept as an artifact is still the bank's.
    expect(covers(rule(["artifacts"]), call(["artifact:art_1", "bank"]))).toBe(false);
    // Control: without `artifacts` listed, no saved artifact is covered, whatever else is.
    expect(covers(rule(["bank"]), call(["artifact:art_1", "bank"]))).toBe(false);
    expect(covers(rule(["artifact"]), call(["artifact:art_1"]))).toBe(false);
  });

  it("from: trusted is the user's words; chosenFrom widens it to the sources the rule names", () => {
    const base: StandingRule = {
      id: "sr",
      tool: "mail.send",
      when: { to: { from: "trusted" } },
      origins: ["contacts"],
      expiresAt: null,
      createdAt: "",
    };
    const call = (to: ArgStanding): RuleCall => ({
      tool: "mail.send",
      args: { to: "sam@example.test" },
      standing: { to },
      destinations: ["to"],
      origins: ["contacts"],
      violations: 0,
      verdict: "expected",
      steered: false,
    });
    expect(covers(base, call(TOP))).toBe(true);
    expect(covers(base, call(matched("query")))).toBe(true);
    expect(covers(base, call(matched("contacts.search")))).toBe(false);
    expect(covers(base, call(matched(null)))).toBe(false);
    const chosen = { ...base, when: { to: { chosenFrom: ["contacts.search"] } } };
    expect(covers(chosen, call(matched("contacts.search")))).toBe(true);
    expect(covers(chosen, call(matched("contacts.search", "bank.payees")))).toBe(false);
    expect(covers(chosen, call({ by: "content" }))).toBe(false);
  });

  it("a rule silent about a destination covers it only in the user's words, never content's pick (#43)", () => {
    const silent: StandingRule = {
      id: "sr",
      tool: "mail.send",
      when: {},
      origins: null,
      expiresAt: null,
      createdAt: "",
    };
    const call = (to: ArgStanding, destinations = ["to"]): RuleCall => ({
      tool: "mail.send",
      args: { to: "dana@corp.example", subject: "the report" },
      standing: { to, subject: TOP },
      destinations,
      origins: [],
      violations: 0,
      verdict: "expected",
      steered: false,
    });
    expect(covers(silent, call(matched("contacts.list")))).toBe(false);
    expect(covers(silent, call(matched(null)))).toBe(false);
    expect(
      covers({ ...silent, when: { subject: { oneOf: ["the report"] } } }, call(matched("contacts.list"))),
    ).toBe(false);
    // The user's own recipient, and content's pick where the rule says so, are covered.
    expect(covers(silent, call(TOP))).toBe(true);
    expect(covers(silent, call(matched("query")))).toBe(true);
    expect(
      covers({ ...silent, when: { to: { chosenFrom: ["contacts.list"] } } }, call(matched("contacts.list"))),
    ).toBe(true);
    // Control: the same match on an argument that is no destination (a file's id) is covered.
    expect(covers(silent, call(matched("contacts.list"), []))).toBe(true);
  });

  it("never covers a destination content chose unless a chosenFrom on it names every holder", () => {
    fc.assert(
      fc.property(ruleArb, callArb, (rule, call) => {
        if (!covers(rule, call)) return;
        for (const arg of call.destinations) {
          const s = call.standing[arg];
          if (!s || userWords(s)) continue;
          const said = rule.when[arg]?.chosenFrom ?? [];
          expect(s.by).toBe("match");
          if (s.by === "match")
            for (const o of s.origins) expect(o === "query" || (o !== null && said.includes(o))).toBe(true);
        }
      }),
      RUNS,
    );
  });
});

describe("unaskedRefusal: the invariant a stored answer meets", () => {
  const m = matched("contacts.search");
  const cases: Array<[string, boolean, Record<string, ArgStanding>, string | null]> = [
    ["all at the top", true, { to: TOP, body: TOP }, null],
    ["one clean match", true, { to: m, body: TOP }, null],
    ["no arguments", true, {}, null],
    ["the pc steered", false, { to: TOP }, "pc_steered"],
    [
      "a body content wrote, remedied or under a low floor",
      true,
      { to: TOP, body: { by: "content" } },
      "content_argument",
    ],
    ["two matches (a user and a channel both chosen)", true, { user: m, channel: m }, "two_matched"],
    [
      "the id of a record content made",
      true,
      { file_id: { by: "match", origins: ["drive.create_file"], contentMade: true }, email: TOP },
      "content_made_record",
    ],
  ];
  it.each(cases)("%s", (_name, pcTop, args, expected) => {
    expect(unaskedRefusal(pcTop, args)).toBe(expected);
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
    expect(issues({ tool: "bank.pay", when: { amount: { min: 5, max: 1 } } })).toEqual(["when.amount"]);
    expect(
      issues({ tool: "mail.send", when: { to: { from: "trusted", chosenFrom: ["contacts.search"] } } }),
    ).toEqual(["when.to"]);
    expect(issues({ tool: "mail.send", when: { to: { chosenFrom: ["contacts"] } } })).toEqual([
      "when.to.chosenFrom.0",
    ]);
    expect(issues({ tool: "mail.send", origins: ["contacts", "artifacts"] })).toEqual([]);
    expect(issues({ tool: "mail.send", origins: [] })).toEqual(["origins"]);
    expect(issues({ tool: "mail.send", origins: ["a.b"] })).toEqual(["origins.0"]);
    expect(issues(JSON.parse('{"tool":"mail.send","when":{"__proto__":{"max":1}}}'))).toHaveLength(1);
  });

  it("says its scope in words", () => {
    const rule = {
      tool: "mail.send",
      when: { to: { from: "trusted" as const } },
      origins: null,
      expiresAt: null,
    };
    expect(describeRule(rule)).toMatch(
      /^mail\.send when "to" is in your own words \(or from a source you trust\), carrying no other app's data;/,
    );
    expect(
      describeRule({
        tool: "bank.send_money",
        when: { amount: { min: 0, max: 100 }, iban: { chosenFrom: ["bank.payees"] } },
        origins: ["bank", "mail"],
        expiresAt: "2027-01-01T00:00:00Z",
      }),
    ).toBe(
      'bank.send_money when "amount" is a number at least 0 and "amount" is a number at most 100 and "iban" is in your own words, or any value bank.payees gave that what you read names, carrying data from bank, mail at most, until 2027-01-01T00:00:00Z; only calls whose values already meet the policy and whose words content did not write, planned from the catalog',
    );
  });

  it("lets the tenant turn standing rules off per catalog entry", () => {
    const parsed = parsePolicy({ tools: { "bank.send_money": { standingRules: false } } });
    if (!parsed.ok) throw new Error("policy");
    expect(standingRulesAllowed(parsed.policy, "bank.send_money")).toBe(false);
    expect(standingRulesAllowed(parsed.policy, "mail.send")).toBe(true);
    expect(parsePolicy({ tools: { "mail.send": { standingRules: "no" } } }).ok).toBe(false);
  });
});
