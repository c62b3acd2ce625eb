import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";
import {
  ask,
  hubWorld,
  INVITE_PLAN,
  INVITE_QUERY,
  keptValues,
  openSession,
  script,
  settle,
  withInvite,
} from "./hub-kit.ts";

// A query stopped by its consent's expiry ends as every other failure does (the query machine's
// failure transition): failed with consent_expired, audited as query_failed, and in a private
// session none of its values stays in the hub.

/** What the contacts app answers for the landlord: journaled, and shown in the consent. */
const ADDRESS = "morgan.lee@homestead-rentals.test";

/** The invite left unanswered past its consent's time, in a private session or not: what stays. */
async function expired(privately: boolean): Promise<string> {
  const w = await hubWorld(["contacts", "calendar"], withInvite({ consent: { timeoutSeconds: 1 } }));
  await script(w.models.planner, [{ respond: INVITE_PLAN }]);
  const sid = await openSession(w, { private: privately });
  const qid = await ask(w, sid, INVITE_QUERY);
  expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
  expect(await keptValues(w, sid)).toContain(ADDRESS); // held while the query waits
  const view = async () =>
    (await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend })).body as {
      status: string;
      error?: { code: string };
    };
  await expect
    .poll(view, { timeout: 6000, interval: 100 })
    .toMatchObject({ status: "failed", error: { code: "consent_expired" } });
  return keptValues(w, sid);
}

describe("a consent's expiry ends its query as every other failure", () => {
  it("in a private session, the query's values go: the journal's and the consent's data", async () => {
    const left = await expired(true);
    expect(left).not.toContain(ADDRESS);
    expect(left).toContain("calendar.create_event"); // what was asked stays
  });

  it("control: outside a private session the same query keeps them", async () => {
    expect(await expired(false)).toContain(ADDRESS);
  });
});
