/**
 * #43, Build 8: an attacker who knows the defences, as properties. fast-check writes the attacker's
 * content (which trusted value an injection steers to, what else it writes, which record it made,
 * how far past a rule's bound it pushes) and each property drives the real gate (gate.ts: vouching,
 * the stored-answer standings, the standing rules, the consent view) on it. Every property has its
 * control: the same generated attack with the defence off (the rule's scope, the author refusal)
 * gets through, so the property can fail.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  leavesAt,
  type PolicyInput,
  type PoolSource,
  parseNewPolicy,
  parsePolicy,
  policyLattices,
  type StandingRule,
  trustedLeaves,
} from "../../src/policy/index.ts";
import type { ConsentAsk } from "../../src/runtime/consents.ts";
import { Gate } from "../../src/runtime/gate.ts";
import type { Target } from "../../src/runtime/index.ts";
import type { Labeled } from "../../src/runtime/values.ts";
import { entry, policy } from "../policy/fixtures.ts";
import { ALL_DEFENCES, quietPorts } from "./gate-kit.ts";

const RUNS = { numRuns: 150 };
const USER = { confidentiality: "public", integrity: "user" };
const UNTRUSTED = { confidentiality: "public", integrity: "untrusted" };
const userPc = { label: USER, origins: [] };

const str = { type: "string" };
function target(tool: string, properties: Record<string, unknown>, irreversible = true): Target {
  const [app, functionality] = tool.split(".") as [string, string];
  return {
    tool,
    app,
    appId: `app_${app}`,
    functionality,
    version: 1,
    entry: entry({
      irreversible,
      clearance: "confidential",
      requestSchema: { type: "object", properties, additionalProperties: false },
    }),
    description: "the app's own words",
  };
}
const rule = (tool: string, when: StandingRule["when"], extra: Partial<StandingRule> = {}): StandingRule => ({
  id: "sr_1",
  tool,
  when,
  origins: null,
  expiresAt: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  ...extra,
});
/** A value as the interpreter binds it: content's below the top (an app's answer), the user's at it. */
const labeled = (value: unknown, integrity: "user" | "untrusted"): Labeled => ({
  value,
  label: integrity === "user" ? USER : UNTRUSTED,
  origins: [],
  provenance: integrity === "user" ? ["user"] : ["app"],
});
/** Trusted values a tool's answer vouches for, bound earlier in the query. */
const listed = (tool: string, trusted: (string | number)[], contentMade = false): PoolSource => ({
  name: `${tool}'s step`,
  value: undefined,
  label: UNTRUSTED,
  tool,
  trusted,
  contentMade,
});

interface Case {
  target: Target;
  policy: PolicyInput;
  rules: StandingRule[];
  args: Record<string, Labeled>;
  query: string;
  bound: PoolSource[];
  /** false: the rules' scope off, the first rule answers (the guard switched off). */
  scope?: boolean;
}
interface Outcome {
  outcome: "go" | "pause" | string;
  asked: ConsentAsk | null;
  ruled: boolean;
}

/** One call at the real gate, every defence on but (optionally) the rules' scope. */
async function atGate(c: Case): Promise<Outcome> {
  const p = policy(c.policy);
  const audits: string[] = [];
  const g = new Gate({
    queryId: "q1",
    picks: {},
    policy: p,
    lattices: policyLattices(p),
    queryText: c.query,
    snapshot: {
      mode: "catalog",
      catalog: { [c.target.tool]: c.target.entry },
      targets: { [c.target.tool]: [c.target] },
      destinations: { [c.target.tool]: [] },
      choices: { [c.target.tool]: c.target.tool },
      artifacts: {},
    },
    violations: [],
    defences: { ...ALL_DEFENCES, ruleScope: c.scope ?? true },
    ports: quietPorts({ standingRules: async () => c.rules, audit: (type) => audits.push(type) }),
  });
  const outcome = await g
    .check(c.target, "steps[3]", c.args, userPc, () => c.bound)
    .catch((e: { code?: string }) => e.code ?? "threw");
  return { outcome, asked: g.asked, ruled: audits.includes("standing_rule_used") };
}

// The attacker's material: addresses, names and words it may write or steer to.
const word = fc.stringMatching(/^[a-z][a-z0-9]{1,9}$/);
const address = fc.tuple(word, word).map(([local, host]) => `${local}@${host}.test`);
/** A list of trusted values and the one content steers to among them (never in the user's words). */
const steered = (values: fc.Arbitrary<string>, min = 2) =>
  fc
    .uniqueArray(values, { minLength: min, maxLength: 8 })
    .chain((list) => fc.record({ list: fc.constant(list), pick: fc.constantFrom(...list) }));
const injected = fc
  .tuple(fc.constantFrom("Please", "URGENT:", "Note to the assistant:", ""), fc.lorem({ maxCount: 12 }))
  .map(([lead, words]) => `${lead} ${words}`.trim());
const QUERY = "Send the quarterly report to the right person";

describe("match steering: content picks another of the user's trusted values as the destination", () => {
  const send = target("mail.send", { to: { ...str, format: "email" }, subject: str, body: str });
  const POLICY: PolicyInput = {
    planning: { mode: "catalog" },
    tools: {
      "contacts.list": { trustedValues: ["contacts[].email"] },
      "mail.send": { args: { to: { role: "destination", match: "trusted" } } },
    },
  };
  /** Rules a user may set without saying content may choose the recipient among her contacts. */
  const unsaid = (subject: string) =>
    fc.constantFrom(
      rule("mail.send", {}),
      rule("mail.send", { subject: { oneOf: [subject] } }),
      rule("mail.send", { to: { from: "trusted" } }),
      rule("mail.send", { to: { from: "trusted" }, subject: { oneOf: [subject] } }),
      rule("mail.send", { to: { chosenFrom: ["payees.list"] } }),
      rule("mail.send", { to: { from: "trusted" } }, { origins: ["contacts"] }),
    );
  const attack = fc
    .record({ contacts: steered(address), subject: fc.lorem({ maxCount: 4 }), body: injected })
    .chain((a) => fc.record({ a: fc.constant(a), rule: unsaid(a.subject) }));
  const caseOf = (a: { contacts: { list: string[]; pick: string }; subject: string; body: string }) => ({
    target: send,
    policy: POLICY,
    query: QUERY,
    bound: [listed("contacts.list", a.contacts.list)],
    args: {
      to: labeled(a.contacts.pick, "untrusted"),
      subject: labeled(a.subject, "user"),
      body: labeled(a.body, "user"),
    },
  });

  it("is never answered by a rule that does not say chosenFrom, and the consent says whose pick it was", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async ({ a, rule: r }) => {
        const c = { ...caseOf(a), rules: [r] };
        const on = await atGate(c);
        expect(on.outcome).toBe("pause");
        expect(on.ruled).toBe(false);
        expect(on.asked?.kind).toBe("irreversible");
        const to = on.asked?.request.view?.fields.find((f) => f.name === "to");
        expect(to?.value).toBe(a.contacts.pick);
        const said = to?.warnings.find((w) => w.code === "not_your_words")?.message ?? "";
        expect(said).toContain(
          `chosen by content you read, among ${a.contacts.list.length} of your values from contacts.list's answer`,
        );
        expect(said).not.toContain("your words;");
        // Control: the same call, the rule's scope off, goes unasked.
        expect((await atGate({ ...c, scope: false })).outcome).toBe("go");
      }),
      RUNS,
    );
  });

  it("is answered where the rule says content may choose among the contacts (the property can pass)", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async ({ a }) => {
        const said = rule("mail.send", { to: { chosenFrom: ["contacts.list"] } });
        expect(await atGate({ ...caseOf(a), rules: [said] })).toMatchObject({ outcome: "go", ruled: true });
      }),
      RUNS,
    );
  });

  it("control: the same contact in the user's own words is hers, unmarked", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async ({ a }) => {
        const c = { ...caseOf(a), query: `${QUERY}: ${a.contacts.pick}`, rules: [] };
        const to = (await atGate(c)).asked?.request.view?.fields.find((f) => f.name === "to");
        expect(to?.warnings.map((w) => w.code)).not.toContain("not_your_words");
      }),
      RUNS,
    );
  });
});

type AttackTwo = {
  channels: { list: string[]; pick: string };
  users: { list: string[]; pick: string };
  when: StandingRule["when"];
};

describe("two matched arguments: each a value the workspace lists, together the attacker's choice", () => {
  const add = target("slack.add_user_to_channel", { user: str, channel: str });
  const SOURCES = ["slack.get_channels", "slack.get_users"];
  const POLICY: PolicyInput = {
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
  const attack = fc.record({
    channels: steered(word),
    users: steered(word.map((w) => w[0]!.toUpperCase() + w.slice(1))),
    // What the user allowed once: content may pick among the lists, each argument on its own.
    when: fc.constantFrom<StandingRule["when"]>(
      { user: { chosenFrom: SOURCES }, channel: { chosenFrom: SOURCES } },
      { user: { chosenFrom: [SOURCES[1]!] }, channel: { chosenFrom: [SOURCES[0]!] } },
    ),
  });
  const caseOf = (a: AttackTwo, channelBy: "user" | "untrusted") => ({
    target: add,
    policy: POLICY,
    query: "Add our newest member to a channel",
    rules: [rule(add.tool, a.when)],
    bound: [listed(SOURCES[0]!, a.channels.list), listed(SOURCES[1]!, a.users.list)],
    args: { user: labeled(a.users.pick, "untrusted"), channel: labeled(a.channels.pick, channelBy) },
  });

  it("is asked, never answered by the rule; control: with the guard off the same call goes", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async (a) => {
        const c = caseOf(a, "untrusted");
        const on = await atGate(c);
        expect([on.outcome, on.asked?.kind, on.ruled]).toEqual(["pause", "irreversible", false]);
        expect((await atGate({ ...c, scope: false })).outcome).toBe("go");
        // Honest: the user named the channel; content picked only whom among the members.
        expect(await atGate(caseOf(a, "user"))).toMatchObject({ outcome: "go", ruled: true });
      }),
      RUNS,
    );
  });
});

describe("write then designate: a record content made, designated by its matched id", () => {
  const share = target("drive.share_file", { file_id: str, email: { ...str, format: "email" } });
  const POLICY: PolicyInput = {
    planning: { mode: "catalog" },
    tools: {
      "drive.create_file": { trustedValues: ["id"] },
      "drive.share_file": {
        args: { file_id: { role: "control", match: "trusted", from: ["drive.create_file"] } },
      },
    },
  };
  const attack = fc.record({
    files: steered(
      fc.nat(99_999).map((n) => `f_${n}`),
      1,
    ),
    email: address,
    when: fc.constantFrom<StandingRule["when"]>(
      { email: { from: "trusted" } },
      {},
      { file_id: { chosenFrom: ["drive.create_file"] }, email: { from: "trusted" } },
    ),
  });
  const caseOf = (
    a: { files: { list: string[]; pick: string }; email: string; when: StandingRule["when"] },
    contentMade: boolean,
  ) => ({
    target: share,
    policy: POLICY,
    query: `Share the new file with ${a.email}`,
    rules: [rule(share.tool, a.when)],
    bound: [listed("drive.create_file", a.files.list, contentMade)],
    args: { file_id: labeled(a.files.pick, "untrusted"), email: labeled(a.email, "user") },
  });

  it("is asked, though the address is the user's; control: with the guard off it goes", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async (a) => {
        const c = caseOf(a, true);
        const on = await atGate(c);
        expect([on.outcome, on.asked?.kind, on.ruled]).toEqual(["pause", "irreversible", false]);
        expect((await atGate({ ...c, scope: false })).outcome).toBe("go");
        // Honest: the plan made the file from the user's words; sharing it by its id goes by the rule.
        expect(await atGate(caseOf(a, false))).toMatchObject({ outcome: "go", ruled: true });
      }),
      RUNS,
    );
  });
});

describe("rule stretching: values just outside a rule's bounds", () => {
  const pay = target("bank.send_money", { recipient: str, amount: { type: "number" }, currency: str });
  const POLICY: PolicyInput = { planning: { mode: "catalog" } };
  const IBAN = "DE89370400440532013000";
  /** Past a bound by a little or a lot: a cent, a rounding error, the whole account. */
  const past = fc.oneof(
    fc.constantFrom(0.01, 1e-9, 1, 1_000_000),
    fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
  );
  /** A literal written so it looks like the allowed one: case, spaces, a look-alike letter. */
  const lookalike = (v: string) =>
    fc.constantFrom(
      v.toLowerCase() === v ? v.toUpperCase() : v.toLowerCase(),
      ` ${v}`,
      `${v}\u200b`,
      String.fromCharCode(v.charCodeAt(0) + 0xfee0) + v.slice(1),
    );
  const attack = fc
    .record({
      min: fc.integer({ min: 0, max: 50 }),
      span: fc.integer({ min: 1, max: 500 }),
      by: past,
      side: fc.constantFrom("below" as const, "above" as const, "currency" as const, "origin" as const),
      currency: fc.constantFrom("EUR", "GBP", "USD"),
      app: fc.constantFrom("mail", "drive", "chat"),
    })
    .chain((a) => fc.record({ a: fc.constant(a), forged: lookalike(a.currency) }));
  type Stretch = { min: number; span: number; by: number; side: string; currency: string; app: string };
  const caseOf = (a: Stretch, forged: string, within: boolean) => {
    const max = a.min + a.span;
    const amount =
      within || (a.side !== "below" && a.side !== "above")
        ? a.min
        : a.side === "below"
          ? a.min - a.by
          : max + a.by;
    const currency = !within && a.side === "currency" ? forged : a.currency;
    const origins = !within && a.side === "origin" ? [a.app] : ["contacts"];
    return {
      target: pay,
      policy: POLICY,
      query: `Pay ${IBAN} the rent`,
      rules: [
        rule(
          pay.tool,
          { recipient: { from: "trusted" }, amount: { min: a.min, max }, currency: { oneOf: [a.currency] } },
          { origins: ["contacts"] },
        ),
      ],
      bound: [],
      args: {
        recipient: labeled(IBAN, "user"),
        amount: { ...labeled(amount, "user"), origins },
        currency: labeled(currency, "user"),
      },
    };
  };

  it("is not covered: asked; control: the same rule covers the value inside, and with its scope off the stretched one", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async ({ a, forged }) => {
        const c = caseOf(a, forged, false);
        const on = await atGate(c);
        expect([on.outcome, on.asked?.kind, on.ruled]).toEqual(["pause", "irreversible", false]);
        expect((await atGate({ ...c, scope: false })).outcome).toBe("go");
        expect(await atGate(caseOf(a, forged, true))).toMatchObject({ outcome: "go", ruled: true });
      }),
      RUNS,
    );
  });

  it("control (#43 L4): a ceiling alone covers an amount far below any floor", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async ({ a, forged }) => {
        const c = caseOf({ ...a, side: "below" }, forged, false);
        const ceiling = rule(pay.tool, { amount: { max: a.min + a.span } }, { origins: ["contacts"] });
        expect((await atGate({ ...c, rules: [ceiling] })).outcome).toBe("go");
      }),
      RUNS,
    );
  });
});

describe("authored values: the injection's author is in the answer a policy trusts", () => {
  const send = target("chat.send_direct_message", { recipient: str, body: str });
  const READ = "chat.read_channel";
  /** An author name as an admin might spell it: case, `_` or `-`, camel case. */
  const authorField = fc.constantFrom(
    "sender",
    "Sender",
    "from",
    "FROM",
    "author",
    "owner",
    "participants",
    "attendees",
    "members",
    "reply_to",
    "replyTo",
    "Reply-To",
  );
  const plain = fc.constantFrom("messages", "thread", "items", "data", "channel");
  /** The path through the author field, and an answer that has the attacker's address exactly there. */
  const attack = fc
    .record({
      before: fc.array(fc.tuple(plain, fc.boolean()), { maxLength: 2 }),
      field: authorField,
      list: fc.boolean(),
      after: fc.option(fc.constantFrom("email", "address", "id"), { nil: undefined }),
      attacker: fc.oneof(address, word),
      honest: fc.uniqueArray(address, { minLength: 1, maxLength: 3 }),
    })
    .map((a) => {
      const parts = [
        ...a.before.map(([n, l]) => (l ? `${n}[]` : n)),
        a.list ? `${a.field}[]` : a.field,
        ...(a.after ? [a.after] : []),
      ];
      // Built inside out: the leaf is the attacker's, every list holds the one item.
      let value: unknown = a.attacker;
      for (const part of [...parts].reverse()) {
        const list = part.endsWith("[]");
        const name = list ? part.slice(0, -2) : part;
        value = { [name]: list ? [value] : value, contacts: a.honest.map((email) => ({ email })) };
      }
      return { ...a, path: parts.join("."), answer: value };
    });
  const policyOf = (path: string): PolicyInput => ({
    planning: { mode: "catalog" },
    tools: {
      [READ]: { trustedValues: [path, "contacts[].email"] },
      [send.tool]: { args: { recipient: { role: "destination", match: "trusted" } } },
    },
  });

  it("a policy PUT refuses the path, naming it; control: the same document without it is accepted", () => {
    fc.assert(
      fc.property(attack, (a) => {
        const doc = policyOf(a.path);
        const put = parseNewPolicy(doc);
        expect(put.ok).toBe(false);
        if (!put.ok)
          expect(put.details).toContainEqual(
            expect.objectContaining({ path: `tools["${READ}"].trustedValues[0]` }),
          );
        // A stored document still loads (stored documents must).
        expect(parsePolicy(doc).ok).toBe(true);
        expect(parseNewPolicy(policyOf("contacts[].id")).ok).toBe(true);
      }),
      RUNS,
    );
  });

  it("a stored one vouches nothing there: the DM to the author is refused; control: the path would have vouched", async () => {
    await fc.assert(
      fc.asyncProperty(attack, async (a) => {
        const p = policyOf(a.path);
        const paths = [a.path];
        const c = {
          target: send,
          policy: p,
          query: "Congratulate the most active member",
          rules: [rule(send.tool, { recipient: { chosenFrom: [READ] } })],
          args: { recipient: labeled(a.attacker, "untrusted"), body: labeled("Congrats!", "user") },
        };
        // As the interpreter binds the answer's trusted leaves (interpreter.ts).
        const on = await atGate({ ...c, bound: [listed(READ, trustedLeaves(a.answer, paths))] });
        expect(on.outcome).toBe("flow_violation");
        // Control: the leaves the path names hold the attacker, and vouched they let the DM go by the rule.
        const leaves = leavesAt(a.answer, a.path);
        expect(leaves).toContain(a.attacker);
        expect((await atGate({ ...c, bound: [listed(READ, leaves)] })).outcome).toBe("go");
      }),
      RUNS,
    );
  });
});
