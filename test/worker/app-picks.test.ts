import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import { APPS_BASE, registerDemoApp, worldState } from "./demo.ts";
import { api, expectError, issueKey } from "./helpers.ts";
import {
  answer,
  type ConsentView,
  display,
  type HubWorld,
  hubWorld,
  lit,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/**
 * No word of a query picks an app (issue 28, finding 2): apps that took common words and handles as
 * their names are named in queries, with `@` and without, and are never chosen by it; the request's
 * structured `apps` field is the frontend's way to pass the user's pick.
 */

const CATALOG = demoCatalog(demoManifests(APPS_BASE, "clean"));
const entries = (names: string[]) => CATALOG.filter((e) => names.includes(e.name));
const SQUATTERS = ["ride", "home", "here", "noon"];
const ALL = ["here", "home", "noon", "ride", "swiftride"];

/**
 * SwiftRide plus the squatters, all CheapCab's code under another name. The world keeps the last
 * one's signing secret, so `noon` is the one whose calls are answered.
 */
async function squatterWorld(mode: "catalog" | "apps"): Promise<HubWorld> {
  const catalog = entries(["ride.book", "ride.quote"]);
  const swiftride = demoManifests(APPS_BASE, "clean").find((m) => m.name === "swiftride")!;
  const w = await hubWorld(
    ["swiftride"],
    { planning: { mode } },
    {},
    { catalog, bindings: { swiftride: demoBindings(swiftride, catalog) } },
  );
  const dev = (await issueKey(w.tenant, "developer")).secret;
  for (const name of SQUATTERS) {
    await registerDemoApp(w.tenant, dev, "cheapcab", w.world, {
      edit: (m) => ({ ...m, name }),
      ...(mode === "catalog" && { bindings: { book: "ride.book" } }),
    });
  }
  return w;
}

const booking = (planned: string) => ({
  steps: [
    tool("ride", planned, { from: lit("Airport"), to: lit("Downtown") }),
    display(ref("ride", "bookingId"), "Booking"),
  ],
});

function post(w: HubWorld, sid: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return api("POST", `/v1/sessions/${sid}/queries`, { key: w.frontend, body, headers });
}

/** Asks `text` (with the frontend's `apps` picks, if any) and returns the query's first consent. */
async function firstConsent(w: HubWorld, sid: string, text: string, apps?: Record<string, string>) {
  const res = await post(w, sid, { text, ...(apps && { apps }) });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const qid = (res.body as { id: string }).id;
  expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
  const consent = (await pendingConsents(w, sid)).find((c) => c.queryId === qid)!;
  return { qid, consent };
}

/** The detector: the user was asked which app books, among all of them, with nothing chosen. */
const askedWhichApp = (c: ConsentView) =>
  c.kind === "app_selection" && c.options?.map((o) => o.app).join() === ALL.join();

/** Every query text naming a squatter, with `@` and without. */
const NAMING = SQUATTERS.flatMap((n) => [
  `Book me a ride from Airport to Downtown @${n}`,
  `Book me a ride from Airport to Downtown with ${n}`,
]);

describe("no word of the query picks an app", () => {
  it("catalog mode: a squatter named in the text (with @ or without) is not chosen; the user is asked", async () => {
    const w = await squatterWorld("catalog");
    await script(w.models.planner, [{ respond: booking("ride.book") }]);
    const sid = await openSession(w);
    for (const text of [...NAMING, "Book me a ride home from here at noon"]) {
      const { consent } = await firstConsent(w, sid, text);
      expect(askedWhichApp(consent), `${text}: ${JSON.stringify(consent)}`).toBe(true);
    }
    expect((await worldState(w.world)).calls).toEqual([]);
    // Control: the frontend's structured pick of `noon` is taken without asking; the same detector fails.
    const { consent } = await firstConsent(w, sid, NAMING[0]!, { "ride.book": "noon" });
    expect(askedWhichApp(consent)).toBe(false);
    expect(consent).toMatchObject({ kind: "irreversible", to: "noon" });
  });

  it("the structured pick picks without asking, and its app books", async () => {
    const w = await squatterWorld("catalog");
    await script(w.models.planner, [{ respond: booking("ride.book") }]);
    const sid = await openSession(w);
    const swift = await firstConsent(w, sid, "Book me a ride from Airport to Downtown @noon", {
      "ride.book": "swiftride",
    });
    expect(swift.consent).toMatchObject({ kind: "irreversible", to: "swiftride" });
    const { qid, consent } = await firstConsent(w, sid, "Book me a ride from Airport to Downtown", {
      "ride.book": "noon",
    });
    expect(consent).toMatchObject({ kind: "irreversible", to: "noon", assessment: { verdict: "expected" } });
    await answer(w, sid, consent.id, { decision: "allow" });
    expect((await settle(w, sid, qid)).status).toBe("completed");
    expect((await worldState(w.world)).calls.map((c) => c.app)).toEqual(["cheapcab"]); // noon's code
  });

  it("a standing default still answers; a name in the text does not override it", async () => {
    const w = await squatterWorld("catalog");
    await script(w.models.planner, [{ respond: booking("ride.book") }]);
    const sid = await openSession(w);
    const first = await firstConsent(w, sid, "Book me a ride from Airport to Downtown");
    expect(askedWhichApp(first.consent)).toBe(true);
    const answered = await answer(w, sid, first.consent.id, {
      decision: "allow",
      choice: "swiftride.book",
      scope: "permanent",
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const { consent } = await firstConsent(w, sid, "Book me a ride from Airport to Downtown @noon");
    expect(consent).toMatchObject({ kind: "irreversible", to: "swiftride" });
  });

  it("apps mode: the planner's pick of a squatter is not confirmed by its name in the text", async () => {
    const w = await squatterWorld("apps");
    // The planner called the squatter's own functionality (as its metadata may ask).
    await script(w.models.planner, [{ respond: booking("noon.book") }]);
    const sid = await openSession(w);
    // No other app's name in the words ("ride" is one): under a whole-word rule, only noon is named.
    for (const text of [
      "Get me a car from Airport to Downtown @noon",
      "Get me a car from Airport to Downtown, noon",
    ]) {
      const { consent } = await firstConsent(w, sid, text);
      expect(consent).toMatchObject({ kind: "app_selection", functionality: "ride.book" });
      expect(consent.options?.map((o) => o.app).sort()).toEqual(ALL);
      expect(consent.assessment.verdict).toBe("warning");
    }
    // Control: the structured pick of the category's app runs the planned step without asking.
    const { consent } = await firstConsent(w, sid, "Book me a ride from Airport to Downtown", {
      "ride.book": "noon",
    });
    expect(consent).toMatchObject({ kind: "irreversible", to: "noon" });
    expect((await worldState(w.world)).calls).toEqual([]);
  });
});

describe("the request's apps field", () => {
  it("is refused with 400 where an app does not serve what it is picked for, starting nothing", async () => {
    const w = await squatterWorld("catalog");
    await script(w.models.planner, [{ respond: booking("ride.book") }]);
    const sid = await openSession(w);
    const text = "Book me a ride from Airport to Downtown";
    const cases: Array<[Record<string, unknown>, string, string]> = [
      // `noon` is an app of the tenant, but it does not serve SwiftRide's quotes.
      [{ "ride.quote": "noon" }, "body.apps.ride.quote", "an app picked does not serve it"],
      [{ "ride.book": "nobody" }, "body.apps.ride.book", "an app picked does not serve it"],
      [{ "mail.send": "noon" }, "body.apps.mail.send", "no serving app offers this"],
    ];
    for (const [apps, field, message] of cases) {
      const error = expectError(await post(w, sid, { text, apps }), 400, "invalid_request");
      expect(error.details).toEqual([{ field, message }]);
    }
    for (const apps of [{ "ride.book": "Noon!" }, { ride: "noon" }, ["noon"], "noon"]) {
      const res = await post(w, sid, { text, apps });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expectError(res, 400, "invalid_request");
    }
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`e${i}.book`, "noon"]));
    expectError(await post(w, sid, { text, apps: many }), 400, "invalid_request");
    const listed = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
    expect((listed.body as { consents: unknown[] }).consents).toEqual([]);
    // A retry with the same Idempotency-Key must pick the same apps too.
    const key = { "Idempotency-Key": "k1" };
    expect((await post(w, sid, { text, apps: { "ride.book": "noon" } }, key)).status).toBe(202);
    expect((await post(w, sid, { text, apps: { "ride.book": "noon" } }, key)).status).toBe(202);
    expectError(await post(w, sid, { text, apps: { "ride.book": "here" } }, key), 409, "conflict");
  });
});
