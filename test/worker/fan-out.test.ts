import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import { APPS_BASE, worldState } from "./demo.ts";
import { api } from "./helpers.ts";
import {
  ask,
  display,
  type HubWorld,
  hubWorld,
  lit,
  modelLog,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/**
 * A comparison over providers (`providers: "all"`) against the demo ride apps, in catalog mode: one
 * `ride.quote` entry both apps serve, as the demo tenant's catalog has it.
 */

const CLEAN = demoManifests(APPS_BASE, "clean");
const CATALOG = demoCatalog(CLEAN).filter((e) => e.name.startsWith("ride."));
const RIDES = ["swiftride", "cheapcab"];
const trip = { from: lit("Home"), to: lit("Airport") };
const QUERY = "Compare rides from Home to Airport";

async function rideWorld(steps: unknown[]): Promise<HubWorld> {
  const bindings = Object.fromEntries(
    RIDES.map((name) => [name, demoBindings(CLEAN.find((m) => m.name === name)!, CATALOG)]),
  );
  const w = await hubWorld(RIDES, { planning: { mode: "catalog" } }, {}, { catalog: CATALOG, bindings });
  await script(w.models.planner, [{ respond: { steps } }]);
  return w;
}

const quotes = (providers: boolean) => ({
  ...tool("quotes", "ride.quote", trip),
  ...(providers && { providers: "all" }),
});

async function consentsOf(w: HubWorld, sid: string, qid: string) {
  const res = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
  expect(res.status).toBe(200);
  return (res.body as { consents: Array<{ queryId: string; kind: string }> }).consents.filter(
    (c) => c.queryId === qid,
  );
}

describe("a comparison over every app serving an entry", () => {
  it("quotes from both ride apps in one step, keyed by app, with no app choice asked", async () => {
    const w = await rideWorld([quotes(true), display(ref("quotes"), "Ride quotes")]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, QUERY);
    const q = await settle(w, sid, qid);
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(await consentsOf(w, sid, qid)).toEqual([]);
    const state = await worldState(w.world);
    expect(state.calls.map((c) => c.app).sort()).toEqual(["cheapcab", "swiftride"]);
    const fare = (app: string) => (state.apps[app]!.quotes as Array<{ fare: number }>)[0]!.fare;
    const shown = q.display[0]!.value as Record<string, { fare: number }>;
    expect(Object.keys(shown)).toEqual(["cheapcab", "swiftride"]);
    expect(shown.cheapcab!.fare).toBe(fare("cheapcab"));
    expect(shown.swiftride!.fare).toBe(fare("swiftride"));
    expect(q.trace.filter((e) => e.type === "step_finished").map((e) => e.data.key)).toEqual([
      "steps[0]@cheapcab",
      "steps[0]@swiftride",
    ]);
    // The planner was told how many apps serve the entry, never which.
    const [request] = (await modelLog(w.models.planner)).map((r) => JSON.stringify(r.messages));
    expect(request).toContain("[2 apps]");
    expect(request!.toLowerCase()).not.toMatch(/swiftride|cheapcab/);
  });

  it("control: the same step without fan-out asks which app serves it, and calls none", async () => {
    const w = await rideWorld([quotes(false), display(ref("quotes"), "Ride quote")]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, QUERY);
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    const [consent] = await pendingConsents(w, sid);
    expect(consent).toMatchObject({ kind: "app_selection", functionality: "ride.quote" });
    expect((await worldState(w.world)).calls).toEqual([]);
  });

  it("still asks which app books after the comparison: booking is one app's, the user's pick", async () => {
    const w = await rideWorld([quotes(true), tool("ride", "ride.book", trip), display(ref("ride"))]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, QUERY);
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    const [consent] = await pendingConsents(w, sid);
    expect(consent).toMatchObject({ kind: "app_selection", functionality: "ride.book" });
    const state = await worldState(w.world);
    expect(state.calls.map((c) => c.app).sort()).toEqual(["cheapcab", "swiftride"]); // the quotes only
  });

  it("refuses a fan-out of an irreversible entry before anything runs", async () => {
    const w = await rideWorld([{ ...tool("ride", "ride.book", trip), providers: "all" }]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, QUERY);
    const q = await settle(w, sid, qid);
    expect(q.status).toBe("failed");
    expect(q.error?.code).toBe("invalid_plan");
    expect(JSON.stringify(q.error?.details)).toContain("providers_refused");
    expect((await worldState(w.world)).calls).toEqual([]);
  });
});
