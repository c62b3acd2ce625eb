import { describe, expect, it } from "vitest";
import {
  CONSENT_PATH_STATES,
  type ConsentEvent,
  type ConsentFacts,
  type ConsentPathStatus,
  type ConsentStep,
  consentNext,
  next,
} from "../../src/runtime/index.ts";
import { ASK, consent, query } from "./query-machine-kit.ts";

// The consent path as a table: every event a consent meets, in every status, with the status it
// writes, the events and audit rows it sends, or the closed code it refuses with. A pair the table
// does not list must refuse.

const assessment = ASK.request.assessment;
const facts = (status: ConsentPathStatus, more: Partial<ConsentFacts> = {}): ConsentFacts => ({
  id: "con_1",
  queryId: "q_1",
  kind: "data_share",
  stepId: "steps[0]",
  assessment,
  status,
  ...more,
});
const collaboration = { kind: "collaboration" as const };
const by = { keyId: "key_1", viaUserToken: false };

const EVENTS: Record<string, { event: ConsentEvent; consent?: Partial<ConsentFacts> }> = {
  "asked/step": { event: { type: "asked", origin: { tool: "mail.send" } } },
  "asked/relay": { event: { type: "asked", origin: { from: "inboxpilot" } }, consent: collaboration },
  "answered/allow": {
    event: {
      type: "answered",
      answer: { decision: "allow", scope: "session", choice: "swiftride.quote" },
      settle: { status: "allowed", scope: "session", choice: "swiftride.quote" },
      by,
    },
  },
  "answered/deny": {
    event: {
      type: "answered",
      answer: { decision: "deny", scope: "once" },
      settle: { status: "denied", scope: "once", choice: null },
    },
  },
  expired: { event: { type: "expired" } },
  "withdrawn/relay": { event: { type: "withdrawn" }, consent: collaboration },
  "withdrawn/endorse-of-relay": {
    event: { type: "withdrawn" },
    consent: { kind: "endorse", relay: { consent: "con_0" } },
  },
  "withdrawn/step": { event: { type: "withdrawn" } },
};

/** What each allowed pair does, in full; every other pair refuses with the code `refusal` names. */
const ALLOWED: Record<string, Partial<Record<ConsentPathStatus, ConsentStep>>> = {
  "asked/step": {
    unasked: {
      ok: true,
      write: { status: "pending", scope: null, choice: null },
      events: [
        {
          type: "consent_requested",
          data: { consentId: "con_1", kind: "data_share", tool: "mail.send", key: "steps[0]" },
        },
      ],
      audit: [
        {
          type: "consent_asked",
          detail: { queryId: "q_1", consentId: "con_1", kind: "data_share", tool: "mail.send", assessment },
        },
      ],
    },
  },
  "asked/relay": {
    unasked: {
      ok: true,
      write: { status: "pending", scope: null, choice: null },
      events: [
        {
          type: "consent_requested",
          data: { consentId: "con_1", kind: "collaboration", from: "inboxpilot" },
        },
      ],
      audit: [
        {
          type: "consent_asked",
          detail: { queryId: "q_1", consentId: "con_1", kind: "collaboration", assessment },
        },
      ],
    },
  },
  "answered/allow": {
    pending: {
      ok: true,
      write: { status: "allowed", scope: "session", choice: "swiftride.quote" },
      events: [
        { type: "consent_answered", data: { consentId: "con_1", decision: "allow", scope: "session" } },
      ],
      audit: [
        {
          type: "consent_answered",
          detail: {
            queryId: "q_1",
            consentId: "con_1",
            kind: "data_share",
            decision: "allow",
            scope: "session",
            choice: "swiftride.quote",
            answeredBy: by,
          },
        },
      ],
    },
  },
  "answered/deny": {
    pending: {
      ok: true,
      write: { status: "denied", scope: "once", choice: null },
      events: [{ type: "consent_answered", data: { consentId: "con_1", decision: "deny", scope: "once" } }],
      audit: [
        {
          type: "consent_answered",
          detail: { queryId: "q_1", consentId: "con_1", kind: "data_share", decision: "deny", scope: "once" },
        },
      ],
    },
  },
  expired: {
    pending: {
      ok: true,
      write: { status: "expired", scope: null, choice: null },
      events: [],
      audit: [
        { type: "consent_expired", detail: { queryId: "q_1", consentId: "con_1", kind: "data_share" } },
      ],
    },
  },
  "withdrawn/relay": {
    pending: {
      ok: true,
      write: { status: "expired", scope: null, choice: null },
      events: [],
      audit: [
        { type: "consent_withdrawn", detail: { queryId: "q_1", consentId: "con_1", kind: "collaboration" } },
      ],
    },
  },
  "withdrawn/endorse-of-relay": {
    pending: {
      ok: true,
      write: { status: "expired", scope: null, choice: null },
      events: [],
      audit: [{ type: "consent_withdrawn", detail: { queryId: "q_1", consentId: "con_1", kind: "endorse" } }],
    },
  },
};

/** Why a pair the table does not allow is refused: the same closed code for the same reason. */
function refusal(name: string, status: ConsentPathStatus): ConsentStep {
  const code =
    status === "unasked"
      ? "not_asked"
      : status !== "pending"
        ? "already_settled"
        : name.startsWith("asked")
          ? "already_asked"
          : "not_withdrawable";
  return { ok: false, code, status };
}

describe("the consent path, every (status, event) pair", () => {
  for (const [name, { event, consent: more }] of Object.entries(EVENTS)) {
    for (const status of CONSENT_PATH_STATES) {
      const expected = ALLOWED[name]?.[status] ?? refusal(name, status);
      it(`${status} + ${name} → ${expected.ok ? expected.write.status : expected.code}`, () => {
        expect(consentNext(facts(status, more), event)).toEqual(expected);
      });
    }
  }

  it("covers every event type and every refusal code", () => {
    const types = new Set(Object.values(EVENTS).map((e) => e.event.type));
    expect([...types].sort()).toEqual(["answered", "asked", "expired", "withdrawn"]);
    const codes = new Set(
      Object.values(EVENTS).flatMap(({ event, consent: more }) =>
        CONSENT_PATH_STATES.map((s) => consentNext(facts(s, more), event)).flatMap((step) =>
          step.ok ? [] : [step.code],
        ),
      ),
    );
    expect([...codes].sort()).toEqual(["already_asked", "already_settled", "not_asked", "not_withdrawable"]);
    expect(Object.keys(EVENTS).every((name) => name in ALLOWED || name === "withdrawn/step")).toBe(true);
  });

  it("gives the query machine the same records it sends itself: one definition of each", () => {
    const pending = consent({ status: "pending" });
    const answer = { decision: "allow" as const, scope: "once" as const };
    const path = consentNext(pending, {
      type: "answered",
      answer,
      settle: { status: "allowed", scope: "once", choice: null },
      by,
    });
    const machine = next(query("awaiting_consent"), {
      type: "answered",
      consent: pending,
      answer,
      by,
      pending: 0,
    });
    expect(path.ok && [path.events, path.audit]).toEqual([machine.events, machine.audit]);
    const expiredByPath = consentNext(pending, { type: "expired" });
    const expiredByMachine = next(query("running"), { type: "expired", consent: pending });
    expect(expiredByPath.ok && expiredByPath.audit).toEqual(expiredByMachine.audit);
    const asked = consentNext(facts("unasked"), { type: "asked", origin: { tool: ASK.tool } });
    const askedByMachine = next(query("running"), { type: "asked", consentId: "con_1", ask: ASK });
    expect(asked.ok && [asked.events, asked.audit]).toEqual([askedByMachine.events, askedByMachine.audit]);
  });
});
