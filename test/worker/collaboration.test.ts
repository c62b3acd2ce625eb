/** Collaboration between spokes (IsolateGPT's ISC): only through the hub, with ephemeral ids and consent. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DANA } from "../../examples/apps/src/apps/inboxpilot.ts";
import type { HttpManifestInput } from "../../src/apps/manifest.ts";
import { spokeObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { SpokeDO } from "../../src/objects/spoke/index.ts";
import type { ConsentView } from "../../src/runtime/consent-view.ts";
import { worldState } from "./demo.ts";
import { api, readAudit } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  keptValues,
  lit,
  mirrorCatalog,
  modelLog,
  nextConsent,
  openSession,
  pendingConsents,
  RIDE_TO_LOWERED,
  ref,
  script,
  settle,
  startWith,
  tool,
} from "./hub-kit.ts";

const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
const query = `Get a ride quote from Home to Airport and mail it to Dana (${DANA})`;
const step = tool("done", "inboxpilot.send_update", { task: lit(query) });

/** What SwiftRide's own model answers when it runs as an agentic app. */
const AGENT_QUOTE = { fare: 41.5, currency: "EUR", eta_minutes: 7 };
const AGENT_INSTRUCTIONS = "Quote the ride you are asked for.";

/**
 * SwiftRide's quote run by its own model, so a relay to it needs the agent settings: the model
 * answers at once (`answers`), or first calls its quote endpoint as a tool with the relayed
 * request's places, whose "to" is a destination (`uses its tool`).
 */
type Agentic = "answers" | "uses its tool";
function agenticSwiftride(agentic: Agentic) {
  return (m: HttpManifestInput): HttpManifestInput => {
    const quote = m.functionalities.find((f) => f.name === "quote")!;
    const tools =
      agentic === "uses its tool"
        ? [{ name: "quote", description: "Price a ride.", parameters: quote.request, irreversible: false }]
        : [];
    return {
      ...m,
      agent: {
        instructions: AGENT_INSTRUCTIONS,
        tools,
        functionalities: { quote: tools.map((t) => t.name) },
      },
    };
  };
}

/** SwiftRide's model, each turn told apart from InboxPilot's by its instructions. */
const agentScript = (agentic: Agentic) => [
  { seen: AGENT_INSTRUCTIONS, when: "semanticException", respond: AGENT_QUOTE },
  { seen: AGENT_INSTRUCTIONS, when: '"currency"', respond: AGENT_QUOTE },
  {
    seen: AGENT_INSTRUCTIONS,
    ...(agentic === "uses its tool"
      ? call("quote", { from: "Home", to: "Airport" })
      : { respond: AGENT_QUOTE }),
  },
];

/** The ride apps are cleared for what InboxPilot may carry (confidential) unless `rides` says less. */
async function world(
  fxId: string,
  mode: "apps" | "catalog" = "apps",
  rides = "confidential",
  agentic?: Agentic,
): Promise<HubWorld> {
  // Catalog mode: the admin's entry ride.quote, which both ride apps serve.
  const rideQuote = {
    ...mirrorCatalog(["swiftride"]).find((e) => e.name === "swiftride.quote")!,
    name: "ride.quote",
  };
  const w = await hubWorld(
    ["inboxpilot", "swiftride", "cheapcab"],
    { selfCorrection: 1, planning: { mode }, tools: RIDE_TO_LOWERED },
    { swiftride: rides, cheapcab: rides },
    {
      catalog: [...mirrorCatalog(["inboxpilot"]), rideQuote],
      bindings: { swiftride: { quote: "ride.quote" }, cheapcab: { quote: "ride.quote" } },
      ...(agentic && { edit: { swiftride: agenticSwiftride(agentic) } }),
    },
  );
  await script(w.models.planner, [{ respond: { steps: [step, display(ref("done"))] } }]);
  await script(w.models.spoke, [
    ...(agentic ? agentScript(agentic) : []),
    { when: '"sent"', respond: { status: "mailed the quote" } },
    { when: '"answer"', ...call("send_mail", { to: DANA, subject: "Ride", body: "Quote attached" }) },
    { when: '"fxId"', ...call("lattice_request", { fxId, request: { from: "Home", to: "Airport" } }) },
    { when: "send_update", ...call("lattice_find", { functionality: "ride.quote" }) },
  ]);
  return w;
}

describe("collaboration between spokes", () => {
  it.each(["apps", "catalog"] as const)(
    "goes through the hub: ephemeral id, consent with a warning and the app choice, relayed answer (%s mode)",
    async (mode) => {
      const w = await world("{{fxId}}", mode);
      const sid = await openSession(w);
      const qid = await startWith(w, sid, query, {});
      const irreversible = await nextConsent(w, sid);
      expect(irreversible.kind).toBe("irreversible");
      await answer(w, sid, irreversible.id, { decision: "allow" });

      const collaboration = await nextConsent(w, sid);
      expect(collaboration).toMatchObject({
        kind: "collaboration",
        from: ["inboxpilot"],
        functionality: "ride.quote",
      });
      expect(collaboration.data).toEqual({ from: "Home", to: "Airport" });
      expect(collaboration.assessment.verdict).toBe("warning");
      expect(collaboration.assessment.reasons.join(" ")).toContain("did not call");
      expect(collaboration.assessment.reasons.join(" ")).toContain(
        "written by the app inboxpilot's own model",
      );
      expect(collaboration.options!.map((o) => o.tool).sort()).toEqual(["cheapcab.quote", "swiftride.quote"]);
      // Its view: what the asking app wants sent, written by its agent, and what that agent read.
      const view = (collaboration as { view?: ConsentView }).view!;
      expect(view.title).toBe("inboxpilot asks to use ride.quote");
      expect(view.fields.map((f) => [f.name, f.value, f.sources[0]?.words])).toEqual([
        ["from", "Home", "inboxpilot's agent"],
        ["to", "Airport", "inboxpilot's agent"],
        ["read", expect.any(String), "inboxpilot's agent"],
      ]);
      expect(view.options!.every((o) => !o.preselected)).toBe(true);
      await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });

      const q = await settle(w, sid, qid);
      expect(q.status, JSON.stringify(q.error)).toBe("completed");
      const state = await worldState(w.world);
      expect((state.apps.swiftride!.quotes as unknown[]).length).toBe(1);
      expect((state.apps.cheapcab!.quotes as unknown[]).length).toBe(0);
      expect((state.apps.inboxpilot!.sent as Array<{ to: string }>).map((m) => m.to)).toEqual([DANA]);
      expect(q.trace.some((e) => e.type === "collaboration_relayed")).toBe(true);
    },
  );

  it("refuses a request to apps cleared below what the agent may carry, as it would a plan step", async () => {
    const w = await world("{{fxId}}", "catalog", "internal");
    const sid = await openSession(w);
    const qid = await startWith(w, sid, query, {});
    const irreversible = await nextConsent(w, sid);
    await answer(w, sid, irreversible.id, { decision: "allow" });
    await settle(w, sid, qid);
    const state = await worldState(w.world);
    expect(state.calls.filter((c) => c.app === "swiftride" || c.app === "cheapcab")).toEqual([]);
    expect((await pendingConsents(w, sid)).filter((c) => c.kind === "collaboration")).toEqual([]);
    const audit = await readAudit(w.tenant.tenantId);
    expect(audit.map((e) => e.type)).toContain("collaboration_refused");
  });

  it("control: with the flow check off, the same request reaches the user and then the app", async () => {
    const w = await world("{{fxId}}", "catalog", "internal");
    const sid = await openSession(w);
    const qid = await startWith(w, sid, query, { ifc: "off" });
    const irreversible = await nextConsent(w, sid);
    await answer(w, sid, irreversible.id, { decision: "allow" });
    const collaboration = await nextConsent(w, sid);
    expect(collaboration.kind).toBe("collaboration");
    await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
    await settle(w, sid, qid);
    expect(((await worldState(w.world)).apps.swiftride!.quotes as unknown[]).length).toBe(1);
  });

  it("drops a forged ephemeral id: it reaches no other spoke and no user, and is logged", async () => {
    const w = await world("fx_0123456789abcdef01234567");
    const sid = await openSession(w);
    const qid = await startWith(w, sid, query, {});
    const irreversible = await nextConsent(w, sid);
    await answer(w, sid, irreversible.id, { decision: "allow" });
    await settle(w, sid, qid);
    const state = await worldState(w.world);
    expect(state.calls.filter((c) => c.app === "swiftride" || c.app === "cheapcab")).toEqual([]);
    const consents = (await pendingConsents(w, sid)).filter((c) => c.kind === "collaboration");
    expect(consents).toEqual([]);
    const audit = await readAudit(w.tenant.tenantId);
    expect(audit.map((e) => e.type)).toContain("forged_ephemeral_id");
  });

  /** The collaboration above, allowed through, in a private session or not. */
  async function collaborated(privately: boolean): Promise<string> {
    const w = await world("{{fxId}}", "catalog");
    const sid = await openSession(w, { private: privately });
    const qid = await startWith(w, sid, query, {});
    await answer(w, sid, (await nextConsent(w, sid)).id, { decision: "allow" });
    const collaboration = await nextConsent(w, sid);
    await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
    expect((await settle(w, sid, qid)).status).toBe("completed");
    const shown = (await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend })).body;
    return `${JSON.stringify(shown)}${await keptValues(w, sid)}`;
  }

  it("a private session keeps no value once its query ends: consent data and the relayed request go", async () => {
    const left = await collaborated(true);
    expect(left).not.toContain("Airport"); // the agent's request, shown and relayed
    expect(left).not.toContain(DANA); // the task the plan sent, shown in the irreversible consent
    expect(left).toContain("ride.quote"); // what was asked and answered stays
  });

  it("control: outside a private session the same consents keep what they showed and relayed", async () => {
    const left = await collaborated(false);
    expect(left).toContain("Airport");
    expect(left).toContain(DANA);
  });

  describe("a relay to an agentic functionality", () => {
    /** The relayed request allowed through to SwiftRide, run by its own model. */
    async function relayed(mode: "apps" | "catalog", agentic: Agentic, options: { visorOff?: "T" } = {}) {
      const w = await world("{{fxId}}", mode, "confidential", agentic);
      const sid = await openSession(w);
      const qid = await startWith(w, sid, query, options);
      await answer(w, sid, (await nextConsent(w, sid)).id, { decision: "allow" });
      const collaboration = await nextConsent(w, sid);
      expect(collaboration.kind).toBe("collaboration");
      await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
      const q = await settle(w, sid, qid);
      return { w, q, state: await worldState(w.world), consentId: collaboration.id };
    }

    it.each(["apps", "catalog"] as const)(
      "runs the target's agent with the query's settings and relays its answer (%s mode)",
      async (mode) => {
        const { w, q, state } = await relayed(mode, "answers");
        expect(q.status, JSON.stringify(q.error)).toBe("completed");
        const relay = q.trace.find((e) => e.type === "collaboration_relayed");
        expect(relay?.data).toMatchObject({ tool: "swiftride.quote", ok: true });
        // SwiftRide's own model answered (its endpoint was never called), and the asking agent read that answer.
        expect(state.apps.swiftride!.quotes).toEqual([]);
        const read = (await modelLog(w.models.spoke)).map((r) => r.messages.at(-1)?.content ?? "");
        expect(read).toContain(JSON.stringify({ answer: AGENT_QUOTE }));
        expect((state.apps.inboxpilot!.sent as Array<{ to: string }>).map((m) => m.to)).toEqual([DANA]);
      },
    );

    it("control: the relay's former call, without the agent settings, is refused by the agentic spoke", async () => {
      const w = await world("{{fxId}}", "apps", "confidential", "answers");
      const spoke = rpc<SpokeDO>(
        env.SPOKE.getByName(spokeObjectName(w.tenant.tenantId, "alice", w.apps.swiftride!)),
      );
      // The fields the relay sent before it went through the app-call port.
      const result = await spoke.call({
        tenantId: w.tenant.tenantId,
        userId: "alice",
        appId: w.apps.swiftride!,
        functionality: "quote",
        appVersion: 1,
        request: { from: "Home", to: "Airport" },
        callId: "call_control",
        sessionId: "ses_control",
        idempotencyKey: "control",
        remember: true,
        memory: { carries: "confidential", mayRead: [] },
      });
      expect(result).toMatchObject({ ok: false, code: "agent_not_configured" });
    });

    it("the target's agent meets the query's visor: a destination from the relayed request is the asking agent's, refused (T)", async () => {
      const { q, state, consentId } = await relayed("catalog", "uses its tool");
      expect(q.status, JSON.stringify(q.error)).toBe("completed");
      expect(state.apps.swiftride!.quotes).toEqual([]);
      const trapped = q.trace.find((e) => e.type === "visor_exception");
      expect(trapped?.data).toEqual({
        key: `collaboration:${consentId}`,
        tool: "quote",
        exception: { type: "T" },
      });
    });

    it("control: with T off, the same destination reaches the app", async () => {
      const { q, state } = await relayed("catalog", "uses its tool", { visorOff: "T" });
      expect(q.status, JSON.stringify(q.error)).toBe("completed");
      expect(state.apps.swiftride!.quotes).toHaveLength(1);
      expect(q.trace.filter((e) => e.type === "visor_exception")).toEqual([]);
    });
  });
});
