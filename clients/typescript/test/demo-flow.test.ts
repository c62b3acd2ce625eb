import { describe, expect, inject, it } from "vitest";
import { type Consent, createLattice, type EventType, LatticeError } from "../src/index.ts";

// Against the stack `npm start` runs (API and demo apps under wrangler dev, demo tenant seeded),
// started once for the end-to-end tests by test/console/stack.ts.
const DEMO = "Email the total of this month's invoices to my accountant";

function frontend() {
  const { api, demo } = inject("stack");
  return createLattice({ baseUrl: api, key: demo.keys.frontend });
}

describe("the typed client against npm start's Worker", () => {
  it("runs the demo flow: open a session, ask, answer the irreversible consent, see the result", async () => {
    const lattice = frontend();
    const session = await lattice.openSession("sam");
    const asked: Consent[] = [];
    const query = await lattice.askAndWait(session.id, DEMO, (consent) => {
      asked.push(consent);
      return { decision: "allow", scope: "once" };
    });
    expect(asked.map((c) => [c.kind, c.functionality])).toEqual([["irreversible", "mail.send"]]);
    // The benign demo request: its only reason is that the mail's words were written from the
    // invoices (a sanitised payload), which the user is shown, never called "expected" (#43).
    expect(asked[0]!.assessment).toEqual({
      verdict: "warning",
      reasons: [
        '"body" of mail.send was written from content you read; every link and address in it is one you trust',
      ],
    });
    expect(query.status).toBe("completed");
    expect(query.display.length).toBeGreaterThan(0);
    const consents = await lattice.api.GET("/v1/sessions/{sid}/consents", {
      params: { path: { sid: session.id } },
    });
    expect(consents.data?.consents.map((c) => c.status)).toEqual(["allowed"]);
  });

  it("a denied consent ends the query without the action", async () => {
    const lattice = frontend();
    const session = await lattice.openSession("sam");
    const query = await lattice.askAndWait(session.id, DEMO, () => ({ decision: "deny", scope: "once" }));
    expect(query.status).toBe("failed");
    expect(query.error?.code).toBe("consent_denied");
  });

  it("reads the session's events, typed by the contract, resuming after an id", async () => {
    const lattice = frontend();
    const session = await lattice.openSession("sam");
    const started = await lattice.ask(session.id, DEMO);
    const seen: EventType[] = [];
    let consentId = "";
    for await (const event of lattice.events(session.id)) {
      seen.push(event.type);
      // Narrowed by `type`: the consent's id is typed data.
      if (event.type === "consent_requested") consentId = event.data.consentId;
      if (event.type === "consent_requested" || event.type === "query_finished") break;
    }
    expect(seen.slice(0, 2)).toEqual(["query_started", "planning"]);
    expect(seen.at(-1)).toBe("consent_requested");
    await lattice.answer(session.id, consentId, { decision: "allow", scope: "once" });
    const done = await lattice.waitFor(session.id, started.id);
    expect(done.status).toBe("completed");
    const last = Math.max(...done.trace.filter((e) => e.type === "consent_answered").map((e) => e.seq));
    const after: EventType[] = [];
    for await (const event of lattice.events(session.id, { lastEventId: last })) {
      after.push(event.type);
      if (event.type === "query_finished") break;
    }
    expect(after).not.toContain("consent_answered");
    expect(after.at(-1)).toBe("query_finished");
  });

  it("throws the API's errors as LatticeError with their code", async () => {
    const lattice = frontend();
    const err = await lattice.query("ses_0123456789abcdef0123456789abcdef", "q_x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatticeError);
    expect(err).toMatchObject({ status: 404, code: "not_found" });
    const bad = await lattice.openSession("not a user id!").catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: "invalid_request" });
  });
});
