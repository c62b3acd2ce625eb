import { describe, expect, it } from "vitest";
import { answerRules, type Consent, expiryStopsQuery } from "../../src/runtime/index.ts";

const NOW = Date.parse("2026-12-01T10:00:00Z");
const consent = (over: Partial<Consent> = {}): Consent => ({
  id: "con_1",
  grantSubject: "data_share:mail->notes.add",
  kind: "data_share",
  queryId: "q1",
  stepId: "steps[1]",
  functionality: "notes.add",
  from: ["mail"],
  data: { text: "hi" },
  assessment: { verdict: "expected", reasons: [] },
  scopes: ["once", "session", "permanent"],
  status: "pending",
  scope: null,
  choice: null,
  createdAt: "2026-12-01T09:59:00Z",
  expiresAt: "2026-12-01T10:05:00Z",
  ...over,
});
const waiting = { queryStatus: "awaiting_consent", privateSession: false, now: NOW };

describe("answering a consent", () => {
  it("settles an allow and leaves the grant its scope asks for", () => {
    expect(answerRules(consent(), waiting, { decision: "allow", scope: "permanent" })).toEqual({
      ok: true,
      settle: {
        status: "allowed",
        scope: "permanent",
        choice: null,
        grant: {
          scope: "permanent",
          subject: "data_share:mail->notes.add",
          choice: null,
          description: "share data from mail with notes.add",
        },
      },
    });
    const once = answerRules(consent(), waiting, { decision: "allow", scope: "once" });
    expect(once.ok && once.settle.grant).toBeNull();
    const denied = answerRules(consent(), waiting, { decision: "deny", scope: "session" });
    expect(denied.ok && denied.settle).toMatchObject({ status: "denied", grant: null });
  });

  it("finds a late answer expired, and says the hub must record the expiry now", () => {
    const late = { ...waiting, now: Date.parse("2026-12-01T10:05:00Z") };
    expect(answerRules(consent(), late, { decision: "allow", scope: "once" })).toMatchObject({
      ok: false,
      code: "already_answered",
      details: { status: "expired", late: true },
    });
  });

  it("refuses a second answer and an answer to a query that no longer waits", () => {
    const answered = consent({ status: "denied" });
    expect(answerRules(answered, waiting, { decision: "allow", scope: "once" })).toMatchObject({
      code: "already_answered",
      details: { status: "denied", late: false },
    });
    const finished = { ...waiting, queryStatus: "failed" };
    expect(answerRules(consent(), finished, { decision: "allow", scope: "once" })).toMatchObject({
      code: "query_finished",
    });
    // A collaboration is answered while its step runs, not while the query waits.
    const collab = consent({ kind: "collaboration", scopes: ["once"] });
    expect(answerRules(collab, waiting, { decision: "allow", scope: "once" })).toMatchObject({
      code: "query_finished",
    });
    expect(
      answerRules(collab, { ...waiting, queryStatus: "running" }, { decision: "allow", scope: "once" }).ok,
    ).toBe(true);
  });

  it("offers only the consent's scopes, and never a permanent one in a private session", () => {
    const irreversible = consent({ kind: "irreversible", scopes: ["once"], grantSubject: null });
    expect(answerRules(irreversible, waiting, { decision: "allow", scope: "session" })).toMatchObject({
      code: "scope_not_allowed",
      details: { allowed: ["once"] },
    });
    const privately = { ...waiting, privateSession: true };
    expect(answerRules(consent(), privately, { decision: "allow", scope: "permanent" })).toMatchObject({
      code: "scope_not_allowed",
      details: { allowed: ["once", "session"] },
    });
  });

  it("takes the app the user picked, the only option by default, and refuses one not offered", () => {
    const options = [
      { tool: "swiftride.quote", app: "swiftride", description: "quotes" },
      { tool: "cheapcab.quote", app: "cheapcab", description: "quotes" },
    ];
    const pick = consent({ kind: "app_selection", grantSubject: "app_selection:ride.quote", options });
    const chosen = answerRules(pick, waiting, {
      decision: "allow",
      scope: "session",
      choice: "cheapcab.quote",
    });
    expect(chosen.ok && chosen.settle.grant).toMatchObject({
      choice: "cheapcab.quote",
      description: "use cheapcab.quote for notes.add",
    });
    expect(answerRules(pick, waiting, { decision: "allow", scope: "once" })).toMatchObject({
      code: "invalid_choice",
    });
    expect(
      answerRules(pick, waiting, { decision: "allow", scope: "once", choice: "evil.quote" }),
    ).toMatchObject({
      code: "invalid_choice",
    });
    const single = consent({ kind: "app_selection", options: options.slice(0, 1) });
    const only = answerRules(single, waiting, { decision: "allow", scope: "once" });
    expect(only.ok && only.settle.choice).toBe("swiftride.quote");
  });

  it("stops the query on expiry only where the query waits for that answer", () => {
    expect(expiryStopsQuery(consent(), "awaiting_consent")).toBe(true);
    expect(expiryStopsQuery(consent(), "completed")).toBe(false);
    expect(expiryStopsQuery(consent({ kind: "collaboration" }), "awaiting_consent")).toBe(false);
  });
});
