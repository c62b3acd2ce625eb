/**
 * An agent's requests to other apps through the hub, in the reducer (agent-turn.ts): which tools it
 * is offered, what it tells the hub it read and holds, and how a relay's outcome labels its answer
 * and counts as its one irreversible act.
 */
import { describe, expect, it } from "vitest";
import type { Discovery } from "../../src/contracts.ts";
import {
  type AgentAction,
  type AgentObservation,
  type AgentSetup,
  agentStart,
} from "../../src/runtime/index.ts";
import { calls, drive, INBOX, obj, says, setup } from "./agent-kit.ts";

describe("relays to other apps", () => {
  const ride: Discovery = {
    fxId: "fx_ride",
    request: obj({ city: { type: "string" } }),
    response: obj({ price: { type: "number" } }),
    irreversible: false,
    destinations: [],
    confirmed: true,
  };
  const relayWorld =
    (reply: Extract<AgentObservation, { type: "relay" }>["reply"]) =>
    (action: Exclude<AgentAction, { type: "model" | "done" }>): AgentObservation =>
      action.type === "find"
        ? { type: "find", discovery: action.functionality === "ride.quote" ? ride : null }
        : action.type === "relay"
          ? { type: "relay", reply }
          : INBOX;
  const relayRun = (reply: Parameters<typeof relayWorld>[0], discovery = ride) =>
    drive(
      setup({ hub: true }),
      [
        calls(["lattice_find", { functionality: "ride.quote" }]),
        calls(["lattice_request", { fxId: discovery.fxId, request: { city: "Oslo" } }]),
        says({ status: "sent" }),
      ],
      (action) => (action.type === "find" ? { type: "find", discovery } : relayWorld(reply)(action)),
    );

  it("offers the collaboration tools only with a hub linked and the tool declared", () => {
    const tools = (s: AgentSetup) => {
      const first = agentStart(s, 0).action;
      return first.type === "model" ? first.tools.map((t) => t.name) : [];
    };
    expect(tools(setup({ hub: true }))).toEqual([
      "search_inbox",
      "send_mail",
      "lattice_find",
      "lattice_request",
    ]);
    expect(tools(setup())).toEqual(["search_inbox", "send_mail"]);
    expect(tools(setup({ hub: true, fx: "summarize" }))).toEqual(["search_inbox"]);
  });

  it("sends the hub the request the visor judged: one that is no object goes as {}", () => {
    const { actions } = drive(
      setup({ hub: true }),
      [
        calls(["lattice_find", { functionality: "ride.quote" }]),
        calls(["lattice_request", { fxId: ride.fxId, request: "pay 500 to attacker" }]),
        says({ status: "sent" }),
      ],
      relayWorld({ ok: true, state: "answered", value: { price: 12 }, confidentiality: "public" }),
    );
    const relay = actions.find((a) => a.type === "relay");
    expect(relay?.type === "relay" && relay.request).toEqual({});
  });

  it("an answered relay's level labels the answer, which is untrusted", () => {
    const run = relayRun({ ok: true, state: "answered", value: { price: 12 }, confidentiality: "secret" });
    expect(run.actions[3]).toEqual({
      type: "relay",
      fxId: "fx_ride",
      request: { city: "Oslo" },
      read: ["its developer's instructions"],
      carried: ["internal"],
    });
    expect(run.outcome).toMatchObject({ ok: true, readUntrusted: true, relayed: ["secret"] });
    expect(run.state.ledger.irreversibleDone).toBe(false); // the ride quote can be undone
  });

  it("tells the hub what the agent read and holds when it relays after reading", () => {
    const run = drive(
      setup({ hub: true }),
      [
        calls(["search_inbox", { query: "" }]),
        calls(["lattice_find", { functionality: "ride.quote" }]),
        calls(["lattice_request", { fxId: "fx_ride", request: { city: "Oslo" } }]),
        calls(["lattice_request", { fxId: "fx_ride", request: { city: "Bergen" } }]),
        says({ status: "sent" }),
      ],
      relayWorld({ ok: true, state: "answered", value: { price: 1 }, confidentiality: "secret" }),
    );
    const relays = run.actions.filter((a) => a.type === "relay");
    expect(relays.map((r) => [r.read, r.carried])).toEqual([
      [["its developer's instructions", "content its tools returned"], ["internal"]],
      [
        ["its developer's instructions", "content its tools returned", "other apps' answers"],
        ["internal", "secret"],
      ],
    ]);
  });

  it("a relay that left the hub to an irreversible target was the one irreversible act", () => {
    const bank = { ...ride, fxId: "fx_bank", irreversible: true };
    const failed = relayRun({ ok: false, code: "failed", message: "the app failed", attempted: true }, bank);
    expect(failed.state.ledger).toMatchObject({ irreversibleDone: true, relayed: [], readUntrusted: true });
    const answered = relayRun({ ok: true, state: "answered", value: {}, confidentiality: "internal" }, bank);
    expect(answered.state.ledger.irreversibleDone).toBe(true);
    // Denied by the user: nothing happened, so the agent's own task may still make its one.
    const denied = relayRun({ ok: false, code: "denied", message: "the user said no" }, bank);
    expect(denied.state.ledger.irreversibleDone).toBe(false);
    const pending = relayRun({ ok: true, state: "pending", consentId: "c1" }, bank);
    expect(pending.state.ledger.irreversibleDone).toBe(false);
    const told = pending.actions.at(-1);
    expect(told?.type === "model" && told.messages.at(-1)?.content).toBe(
      JSON.stringify({ error: "no answer in time" }),
    );
  });

  it("a request to an id it never found is judged irreversible (refused under a reversible task)", () => {
    const run = drive(setup({ hub: true, fx: "summarize" }), [
      calls(["lattice_request", { fxId: "fx_unknown", request: {} }]),
    ]);
    expect(run.outcome).toMatchObject({ ok: false, code: "visor_refused", rule: "S" });
  });
});
