/**
 * A permanent data_share grant over a saved artifact names that artifact: it covers sending it again,
 * never a later share of another artifact (asked again). Control: with every artifact one origin (as
 * before, switched over RPC only), the grant over one covers them all.
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";
import {
  ask,
  display,
  type HubWorld,
  hubWorld,
  lit,
  OWN_BOOK,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  startWith,
  tool,
  withInvite,
} from "./hub-kit.ts";

const invite = (artifact: string) => ({
  steps: [
    { kind: "retrieve", out: "c", artifact },
    tool("ev", "calendar.create_event", {
      title: lit("Flat viewing"),
      date: lit("2026-10-05"),
      participants: { arr: [ref("c", "email")] },
    }),
    display(ref("ev")),
  ],
});

/** Two saved contacts of alice's (the landlord, the accountant): artifacts X and Y. */
async function world(): Promise<{ w: HubWorld; sid: string; x: string; y: string }> {
  const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
  const sid = await openSession(w);
  const lookups = {
    steps: [
      tool("landlord", "contacts.lookup", { name: lit("landlord") }),
      tool("accountant", "contacts.lookup", { name: lit("accountant") }),
      display(lit("found")),
    ],
  };
  await script(w.models.planner, [{ respond: lookups }]);
  const q = await settle(w, sid, await ask(w, sid, "Find my landlord and my accountant"));
  expect(q.status, JSON.stringify(q.error)).toBe("completed");
  const listed = await api("GET", "/v1/users/alice/artifacts", { key: w.frontend });
  const artifacts = (listed.body as { artifacts: Array<{ id: string; name: string }> }).artifacts;
  const id = (name: string) => artifacts.find((a) => a.name === name)!.id;
  return { w, sid, x: id("landlord"), y: id("accountant") };
}

/** Invites the artifact's contact; with `broad`, over RPC with every artifact one origin. */
async function inviteWith(w: HubWorld, sid: string, artifact: string, broad: boolean) {
  await script(w.models.planner, [{ respond: invite(artifact) }]);
  const text = "Invite them to a Flat viewing on 2026-10-05";
  const qid = broad ? await startWith(w, sid, text, { artifactGrants: "broad" }) : await ask(w, sid, text);
  return { qid, query: await settle(w, sid, qid) };
}

async function grantPermanently(w: HubWorld, sid: string, artifact: string, broad: boolean) {
  const first = await inviteWith(w, sid, artifact, broad);
  expect(first.query.status).toBe("awaiting_consent");
  const [consent] = await pendingConsents(w, sid);
  expect(consent!.kind).toBe("data_share");
  const res = await api("POST", `/v1/sessions/${sid}/consents/${consent!.id}`, {
    key: w.frontend,
    body: { decision: "allow", scope: "permanent" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect((await settle(w, sid, first.qid)).status).toBe("completed");
}

describe("a permanent data_share grant over an artifact", () => {
  it("names the artifact, covers it again, and not another (asked again)", async () => {
    const { w, sid, x, y } = await world();
    await grantPermanently(w, sid, x, false);
    const grants = (await api("GET", "/v1/users/alice/grants", { key: w.frontend })).body as {
      grants: Array<{ subject: string; description: string }>;
    };
    expect(grants.grants).toEqual([
      expect.objectContaining({
        // The artifact by id (what the grant covers), and the app whose data it carries (#43).
        subject: `data_share:artifact:${x},contacts->calendar.create_event`,
        description: `share data from artifact:${x}, contacts with calendar.create_event`,
      }),
    ]);
    const other = await openSession(w);
    expect((await inviteWith(w, other, x, false)).query.status).toBe("completed"); // X again: covered
    expect((await inviteWith(w, other, y, false)).query.status).toBe("awaiting_consent"); // Y: asked
    expect((await pendingConsents(w, other))[0]).toMatchObject({
      kind: "data_share",
      from: [`artifact:${y}`, "contacts"],
    });
  });

  it("control: with every artifact one origin, the grant over X covers a later share of Y", async () => {
    const { w, sid, x, y } = await world();
    await grantPermanently(w, sid, x, true);
    const other = await openSession(w);
    expect((await inviteWith(w, other, y, true)).query.status).toBe("completed");
    expect(await pendingConsents(w, other)).toEqual([]);
  });
});
