import { describe, expect, it } from "vitest";
import { next, QUERY_STATES, type QueryStatus, type Transition } from "../../src/runtime/index.ts";
import { EVENTS, query } from "./query-machine-kit.ts";

// The query machine as a table: every event a query meets, in every status, with what it writes,
// emits, audits, forgets and asks the hub to do. A pair the table does not list changes nothing.

/** A transition in brief: what the table below states for each pair. */
function brief(t: Transition) {
  return {
    status: t.status,
    write: t.write && Object.keys(t.write).sort(),
    events: t.events.map((e) => e.type),
    audit: t.audit.map((a) => a.type),
    forget: t.forget,
    uncache: t.uncache,
    effects: t.effects.map((e) => e.kind),
    after: t.after?.type ?? null,
  };
}
type Brief = ReturnType<typeof brief>;
const none: Omit<Brief, "status"> = {
  write: null,
  events: [],
  audit: [],
  forget: false,
  uncache: false,
  effects: [],
  after: null,
};
const ends = (status: QueryStatus, write: string[], events: string[], audit: string[]) =>
  ({ ...none, status, write, events, audit, uncache: true }) as Brief;
const answeredOnly = Object.fromEntries(
  QUERY_STATES.map((s) => [
    s,
    { ...none, status: s, events: ["consent_answered"], audit: ["consent_answered"] } as Brief,
  ]),
);
const failedEnd = ends("failed", ["error", "status"], ["query_finished"], ["query_failed"]);

/** Every pair the machine acts on; any other (status, event) pair is expected unchanged. */
const TABLE: Record<string, Partial<Record<QueryStatus, Brief>>> = {
  advancing: Object.fromEntries(
    QUERY_STATES.map((s) => [
      s,
      { ...none, status: s, write: [], events: s === "planning" ? ["planning"] : [] },
    ]),
  ),
  "planned/running": {
    planning: {
      ...none,
      status: "running",
      write: ["context", "plan", "status", "verdict"],
      events: ["planned"],
      effects: ["hold"],
    },
  },
  "planned/rejected": {
    planning: ends(
      "rejected",
      ["context", "plan", "status", "verdict"],
      ["query_finished"],
      ["plan_rejected"],
    ),
  },
  "planned/invalid": {
    planning: ends("failed", ["error", "status"], ["query_finished"], ["plan_invalid"]),
  },
  "stepped/wait+ask": { running: { ...none, status: "running", effects: ["ask"] } },
  "stepped/done": { running: { ...none, status: "running", effects: ["keep"], after: "completed" } },
  "stepped/failed": { running: { ...none, status: "running", effects: ["keep"], after: "failed" } },
  asked: {
    running: {
      ...none,
      status: "awaiting_consent",
      write: ["status"],
      events: ["consent_requested"],
      audit: ["consent_asked"],
    },
  },
  // The answer is a fact whatever the query's status; only a query waiting on it alone resumes.
  "answered/last": {
    ...answeredOnly,
    running: { ...none, status: "running", events: ["consent_answered"], audit: ["consent_answered"] },
    awaiting_consent: {
      ...none,
      status: "running",
      write: ["status"],
      events: ["consent_answered"],
      audit: ["consent_answered"],
    },
  },
  "answered/more": {
    ...answeredOnly,
    running: { ...none, status: "running", events: ["consent_answered"], audit: ["consent_answered"] },
    awaiting_consent: {
      ...none,
      status: "awaiting_consent",
      events: ["consent_answered"],
      audit: ["consent_answered"],
    },
  },
  // The expiry is audited in any status; it stops only a query waiting on a plan step's consent.
  "expired/step": {
    ...Object.fromEntries(QUERY_STATES.map((s) => [s, { ...none, status: s, audit: ["consent_expired"] }])),
    awaiting_consent: { ...failedEnd, audit: ["consent_expired", "query_failed"] },
  },
  "expired/collaboration": Object.fromEntries(
    QUERY_STATES.map((s) => [s, { ...none, status: s, audit: ["consent_expired"] }]),
  ),
  failed: { planning: failedEnd, running: failedEnd, awaiting_consent: failedEnd },
  completed: { running: ends("completed", ["status"], ["query_finished"], []) },
};

describe("the query machine, every (status, event) pair", () => {
  for (const [name, event] of Object.entries(EVENTS)) {
    for (const status of QUERY_STATES) {
      const expected = TABLE[name]?.[status] ?? { ...none, status };
      it(`${status} + ${name} → ${expected.status}`, () => {
        expect(brief(next(query(status), event))).toEqual(expected);
      });
    }
  }

  it("covers every event type the machine takes", () => {
    const types = new Set(Object.values(EVENTS).map((e) => e.type));
    expect([...types].sort()).toEqual(
      ["advancing", "answered", "asked", "completed", "expired", "failed", "planned", "stepped"].sort(),
    );
  });
});
