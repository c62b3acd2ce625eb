/**
 * A spoke's request goes through the consent path a plan step's consent takes: its ask, answer,
 * expiry and withdrawal are each audited once, whoever reached them. The expiry is the case that
 * showed the two paths apart: the alarm audited it, a spoke's lazy look (`standing()`) settled it
 * silently, so the log depended on which timer came first.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DANA } from "../../examples/apps/src/apps/inboxpilot.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { HubDO } from "./entry.ts";
import { readAudit } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  lit,
  mirrorCatalog,
  openSession,
  RIDE_TO_LOWERED,
  ref,
  script,
  tool,
} from "./hub-kit.ts";

const QUERY = `Get a ride quote from Home to Airport and mail it to Dana (${DANA})`;
const PLAN = {
  steps: [tool("done", "inboxpilot.send_update", { task: lit(QUERY) }), display(ref("done"))],
};

/** The collaboration world (catalog mode), its query planned and left running, stepped by hand. */
async function running() {
  const rideQuote = {
    ...mirrorCatalog(["swiftride"]).find((e) => e.name === "swiftride.quote")!,
    name: "ride.quote",
  };
  const w = await hubWorld(
    ["inboxpilot", "swiftride", "cheapcab"],
    { planning: { mode: "catalog" }, tools: RIDE_TO_LOWERED },
    { swiftride: "confidential", cheapcab: "confidential" },
    {
      catalog: [...mirrorCatalog(["inboxpilot"]), rideQuote],
      bindings: { swiftride: { quote: "ride.quote" }, cheapcab: { quote: "ride.quote" } },
    },
  );
  await script(w.models.planner, [{ respond: PLAN }]);
  const sid = await openSession(w);
  const stub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
  const hub = rpc<HubDO>(stub);
  const started = await hub.startQuery(QUERY, null, { stepping: "manual" });
  if (!started.ok) throw new Error(started.code);
  const qid = started.query.id;
  expect((await hub.advance(qid))?.status).toBe("running");
  return { w, sid, stub, hub, qid };
}

/** InboxPilot's agent asks for a ride quote, as its spoke would: the user's collaboration consent. */
async function requested({ hub, qid }: Awaited<ReturnType<typeof running>>): Promise<string> {
  const found = await hub.discover("ride.quote");
  const reply = await hub.requestCollaboration({
    queryId: qid,
    stepKey: "steps[0]",
    fromApp: "inboxpilot",
    fxId: found!.fxId,
    request: { from: "Home", to: "Airport" },
    read: [],
    carried: [],
  });
  if (!reply.ok || reply.state !== "pending") throw new Error(JSON.stringify(reply));
  return reply.consentId;
}

/** The consent's rows in the tenant's audit log, once the log has taken them (sent after the reply). */
async function auditOf(w: HubWorld, consentId: string, expected: string[]): Promise<string[]> {
  const rows = async () =>
    (await readAudit(w.tenant.tenantId))
      .filter((e) => (e.detail as { consentId?: string }).consentId === consentId)
      .filter((e) => e.type.startsWith("consent_"))
      .map((e) => e.type);
  // Polled up to the expected rows, then read again a little later: a second row would show.
  await expect.poll(rows, { timeout: 3000, interval: 50 }).toEqual(expect.arrayContaining(expected));
  await new Promise((r) => setTimeout(r, 200));
  return rows();
}

/**
 * The consent's time is up now, and the alarm held back (set a minute ahead, where it fires only
 * when the test runs it), so the test says which timer comes first.
 */
async function overdue(stub: DurableObjectStub, consentId: string): Promise<void> {
  await runInDurableObject(stub, async (_, state) => {
    state.storage.sql.exec("UPDATE consents SET expires_at = ? WHERE id = ?", Date.now() - 1, consentId);
    await state.storage.setAlarm(Date.now() + 60_000);
  });
}

describe("a spoke's request through the consent path", () => {
  it("audits its ask and its answer once each; a second answer and a late withdrawal add nothing", async () => {
    const q = await running();
    const consentId = await requested(q);
    const first = await answer(q.w, q.sid, consentId, { decision: "allow", choice: "swiftride.quote" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // Refused, and not logged: the first settlement stands.
    expect((await answer(q.w, q.sid, consentId, { decision: "deny" })).status).toBe(409);
    await q.hub.withdrawCollaboration(consentId);
    expect(await auditOf(q.w, consentId, ["consent_asked", "consent_answered"])).toEqual([
      "consent_asked",
      "consent_answered",
    ]);
    // The trace shows the same two, once each.
    const trace = (await q.hub.events(0, q.qid)).filter((e) => e.data.consentId === consentId);
    expect(trace.map((e) => e.type)).toEqual(["consent_requested", "consent_answered"]);
    expect(trace[0]?.data).toEqual({ consentId, kind: "collaboration", from: "inboxpilot" });
  });

  it.each([
    ["the spoke's lazy look", false],
    ["the alarm", true],
  ] as const)("audits its expiry once when %s gets there first", async (_first, alarmFirst) => {
    const q = await running();
    const consentId = await requested(q);
    await overdue(q.stub, consentId);
    const look = () => q.hub.collaborationOutcome(consentId);
    if (alarmFirst) {
      expect(await runDurableObjectAlarm(q.stub)).toBe(true);
      expect(await look()).toMatchObject({ ok: false, code: "expired" });
    } else {
      expect(await look()).toMatchObject({ ok: false, code: "expired" });
      // The alarm comes later and finds it settled.
      expect(await runDurableObjectAlarm(q.stub)).toBe(true);
    }
    expect(await look()).toMatchObject({ ok: false, code: "expired" });
    expect(await auditOf(q.w, consentId, ["consent_asked", "consent_expired"])).toEqual([
      "consent_asked",
      "consent_expired",
    ]);
    expect((await q.hub.consents({ queryId: q.qid }))[0]?.status).toBe("expired");
  });

  it("audits a withdrawn request once; a later answer is refused and its expiry never logged", async () => {
    const q = await running();
    const consentId = await requested(q);
    await q.hub.withdrawCollaboration(consentId);
    await q.hub.withdrawCollaboration(consentId);
    const late = await q.hub.answerConsent(consentId, { decision: "allow", scope: "once" });
    expect(late).toMatchObject({ ok: false, code: "already_answered" });
    await overdue(q.stub, consentId);
    expect(await runDurableObjectAlarm(q.stub)).toBe(true);
    expect(await q.hub.collaborationOutcome(consentId)).toMatchObject({ ok: false, code: "expired" });
    expect(await auditOf(q.w, consentId, ["consent_asked", "consent_withdrawn"])).toEqual([
      "consent_asked",
      "consent_withdrawn",
    ]);
  });
});
