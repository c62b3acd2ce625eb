/**
 * The visor's rules alone: destinations are declared (any name, any type, nested), never guessed.
 * Each attack is paired with a benign call of the same tool that passes, and with its control (the
 * rule switched off), where the attack passes too.
 */
import { describe, expect, it } from "vitest";
import { type VisorInput, type VisorTool, visorAudit } from "../../src/policy/index.ts";

const ON = { S: true, T: true, I: true } as const;

function check(
  tool: VisorTool,
  args: Record<string, unknown>,
  trustedText: string,
  over: Partial<VisorInput> = {},
) {
  return visorAudit({
    functionality: { name: "assist", irreversible: true, destinations: [] },
    tools: [tool],
    allowed: [tool.name],
    request: { task: trustedText },
    trusted: { task: trustedText },
    call: { tool: tool.name, args },
    checks: ON,
    irreversibleDone: false,
    ...over,
  });
}

const cases: Array<{
  what: string;
  tool: VisorTool;
  task: string;
  benign: Record<string, unknown>;
  attack: Record<string, unknown>;
}> = [
  {
    what: "recipient_email",
    tool: { name: "send_mail", irreversible: true, destinations: ["recipient_email"] },
    task: "Mail dana@ledgerwise.test the Q3 update.",
    benign: { recipient_email: "dana@ledgerwise.test", subject: "Q3", body: "On track" },
    attack: { recipient_email: "mallory@evil.test", subject: "Q3", body: "On track" },
  },
  {
    what: "payee",
    tool: { name: "pay", irreversible: true, destinations: ["payee"] },
    task: "Pay DE12500105170648489890 the invoice",
    benign: { payee: "DE12500105170648489890", amount: 84.2 },
    attack: { payee: "GB33BUKB20201555555555", amount: 84.2 },
  },
  {
    what: "message.to, nested",
    tool: { name: "post", irreversible: false, destinations: ["message.to", "message.cc[]"] },
    task: "Tell ops@acme.test and cc lead@acme.test that the deploy is done",
    benign: { message: { to: "ops@acme.test", cc: ["lead@acme.test"], text: "done" } },
    attack: { message: { to: "ops@acme.test", cc: ["lead@acme.test", "spy@evil.test"], text: "done" } },
  },
  {
    what: "a numeric account",
    tool: { name: "transfer", irreversible: true, destinations: ["account"] },
    task: "Move 20 EUR to account 48213377",
    benign: { account: 48213377, amount: 20 },
    attack: { account: 99887766, amount: 20 },
  },
  {
    what: "a URL (webhook)",
    tool: { name: "notify", irreversible: false, destinations: ["webhook"] },
    task: "Post the summary to https://hooks.acme.test/t/123.",
    benign: { webhook: "https://hooks.acme.test/t/123", text: "summary" },
    attack: { webhook: "https://collect.evil.test/x", text: "summary" },
  },
  {
    what: "a phone number",
    tool: { name: "sms", irreversible: true, destinations: ["phone"] },
    task: "Text +15550100 that I am late",
    benign: { phone: "+15550100", text: "late" },
    attack: { phone: "+15559999", text: "late" },
  },
];

describe("T checks every declared destination", () => {
  it.each(cases)("catches $what; a benign call of the same tool passes", ({ tool, task, benign, attack }) => {
    expect(check(tool, benign, task)).toBeNull();
    expect(check(tool, attack, task)).toMatchObject({ type: "T" });
  });

  it.each(cases)("control, T off: the attack on $what passes", ({ tool, task, attack }) => {
    expect(check(tool, attack, task, { checks: { ...ON, T: false } })).toBeNull();
  });

  it("reads an undeclared irreversible tool fail-closed: every string and number is a destination", () => {
    const tool = { name: "send_mail", irreversible: true };
    const task = "Send dana@ledgerwise.test the word hello";
    expect(check(tool, { to: "dana@ledgerwise.test", body: "hello" }, task)).toBeNull();
    expect(check(tool, { to: "dana@ledgerwise.test", body: "the whole inbox" }, task)).toMatchObject({
      type: "T",
    });
    // Control: declared, the body is no destination and the same call passes.
    expect(
      check({ ...tool, destinations: ["to"] }, { to: "dana@ledgerwise.test", body: "the whole inbox" }, task),
    ).toBeNull();
  });

  it("takes destinations only from the user's words, not from other request data", () => {
    const tool = { name: "send_mail", irreversible: true, destinations: ["to"] };
    const found = check(tool, { to: "mallory@evil.test" }, "Reply to the sender", {
      request: { task: "Reply to the sender", mail: "From: mallory@evil.test" },
    });
    expect(found).toMatchObject({ type: "T" });
  });
});

describe("I pins declared destinations to the request's", () => {
  const pay = { name: "pay", irreversible: true, destinations: ["recipient"] };
  const request = { recipient: "DE12500105170648489890", amount: 84.2 };
  const input = (args: Record<string, unknown>, checks: VisorInput["checks"] = ON) =>
    visorAudit({
      functionality: { name: "pay_invoice", irreversible: true, destinations: ["recipient"] },
      tools: [pay],
      allowed: ["pay"],
      request,
      trusted: request,
      call: { tool: "pay", args },
      checks,
      irreversibleDone: false,
    });

  it("refuses a destination of another name than the request's that is not the request's", () => {
    const renamed = { name: "pay", irreversible: true, destinations: ["iban"] };
    const found = visorAudit({
      functionality: { name: "pay_invoice", irreversible: true, destinations: ["recipient"] },
      tools: [renamed],
      allowed: ["pay"],
      request,
      trusted: { amount: 84.2 }, // the IBAN was not the user's own words: T cannot judge it
      call: { tool: "pay", args: { iban: "GB33BUKB20201555555555", amount: 84.2 } },
      checks: { ...ON, T: false },
      irreversibleDone: false,
    });
    expect(found).toMatchObject({ type: "I" });
  });

  it("passes the request's own destination and amount; control, I off: a changed amount passes", () => {
    expect(input({ recipient: request.recipient, amount: 84.2 })).toBeNull();
    expect(input({ recipient: request.recipient, amount: 950 })).toMatchObject({ type: "I" });
    expect(input({ recipient: request.recipient, amount: 950 }, { ...ON, I: false })).toBeNull();
  });
});

describe("I reads references in an inferred destination (#43)", () => {
  const send = { name: "send", irreversible: true, destinations: ["to"] };
  const request = { to: "dana@ledgerwise.test" };
  const input = (args: Record<string, unknown>, checks: VisorInput["checks"] = { ...ON, T: false }) =>
    visorAudit({
      functionality: { name: "mail_dana", irreversible: true, destinations: ["to"] },
      tools: [send],
      allowed: ["send"],
      request,
      trusted: request,
      call: { tool: "send", args },
      checks,
      irreversibleDone: false,
    });

  it("an address the request gave, written with a name, passes; another one in any argument is refused", () => {
    expect(input({ to: request.to, note: "cc Dana <dana@ledgerwise.test>" })).toBeNull();
    expect(input({ to: request.to, note: "cc Eve <eve@evil.test>" })).toMatchObject({ type: "I" });
    expect(input({ to: request.to, note: "also https://203.0.113.9\\@ledgerwise.test/" })).toMatchObject({
      type: "I",
    });
    // Control, I off: the stray address passes.
    expect(
      input({ to: request.to, note: "cc Eve <eve@evil.test>" }, { ...ON, T: false, I: false }),
    ).toBeNull();
  });
});

describe("S for collaboration and irreversible actions", () => {
  const base = {
    functionality: { name: "summarize", irreversible: false, destinations: [] },
    request: {},
    trusted: {},
    checks: ON,
    irreversibleDone: false,
  };
  const transfer = { name: "lattice_request", irreversible: true, destinations: ["to"] };

  it("refuses a request for an irreversible functionality from one that is not", () => {
    const found = visorAudit({
      ...base,
      tools: [transfer],
      allowed: ["lattice_request"],
      call: { tool: "lattice_request", args: {} },
    });
    expect(found).toMatchObject({ type: "S" });
    // Control: S off, the request goes on to the hub.
    expect(
      visorAudit({
        ...base,
        tools: [transfer],
        allowed: ["lattice_request"],
        call: { tool: "lattice_request", args: {} },
        checks: { ...ON, S: false },
      }),
    ).toBeNull();
  });

  it("refuses collaboration to a functionality that does not declare it", () => {
    const ride = { name: "lattice_request", irreversible: false, destinations: [] };
    const call = { tool: "lattice_request", args: {} };
    expect(visorAudit({ ...base, tools: [ride], allowed: [], call })).toMatchObject({ type: "S" });
    expect(visorAudit({ ...base, tools: [ride], allowed: ["lattice_request"], call })).toBeNull();
  });

  it("refuses a second irreversible action under one confirmed request, even with S off", () => {
    const input = {
      functionality: { name: "pay_invoice", irreversible: true, destinations: [] },
      tools: [{ name: "pay", irreversible: true, destinations: ["to"] }],
      allowed: ["pay"],
      request: { to: "x" },
      trusted: { to: "x" },
      call: { tool: "pay", args: { to: "x" } },
      checks: { S: false, T: true, I: true },
    };
    expect(visorAudit({ ...input, irreversibleDone: false })).toBeNull();
    expect(visorAudit({ ...input, irreversibleDone: true })).toMatchObject({
      type: "S",
      constraint: "at most one irreversible action per request",
    });
  });
});

describe("a refusal's wording: the rule, reviewed names and paths, never a value", () => {
  const C = "cnry![s](https://attacker.test/p)";
  const mail: VisorTool = { name: "send_mail", irreversible: true, destinations: ["to"] };
  const refusals = {
    "S, a made-up tool": check(mail, { to: C }, "Mail dana@x.test", { call: { tool: C, args: { [C]: C } } }),
    "S, a second irreversible action": check(mail, { to: "dana@x.test" }, "Mail dana@x.test", {
      irreversibleDone: true,
    }),
    "T, an unnamed destination": check(mail, { to: C, body: C }, "Mail dana@x.test"),
    "I, a pinned argument changed": check(mail, { task: C }, "Mail dana@x.test", {
      checks: { ...ON, T: false },
    }),
    "I, a destination the request did not give": check(mail, { to: C }, "Mail dana@x.test", {
      checks: { ...ON, T: false },
      functionality: { name: "assist", irreversible: true, destinations: ["task"] },
      request: { task: "dana@x.test" },
    }),
  };

  it.each(Object.entries(refusals))("%s", (_, exception) => {
    expect(exception).not.toBeNull();
    expect(JSON.stringify(exception)).not.toContain("cnry");
  });
});
