import { ModelError } from "../../../llm/index.ts";
import { hubStub } from "../../stubs.ts";
import { recordTokens } from "../../tenant-replica/index.ts";
import { runAgent } from "../agent.ts";
import { type TransportFactory, undelivered } from "./transport.ts";

/** How many remembered interactions an agent is given, of how many recent ones looked at. */
const AGENT_MEMORY = 10;

/**
 * A functionality the app's own agent serves (agent.ts drives the loop): the tenant's model, the
 * memory this call may carry, and a line to the hub when the call sits in a hub query.
 */
export const agentTransport: TransportFactory = (spoke, call, app, fn) => ({
  // The agent's tools are the endpoint's.
  target: app.manifest.endpoint,
  checksResponse: false,
  async call() {
    if (!call.agent)
      return undelivered("agent_not_configured", "no model is configured for this agentic app", {
        unsent: true,
      });
    const { collaboration: link, modelTimeoutMs, ...agent } = call.agent;
    let model: Awaited<ReturnType<typeof spoke.model>>;
    try {
      model = await spoke.model(modelTimeoutMs);
    } catch (error) {
      if (error instanceof ModelError) return undelivered(error.code, error.message, { unsent: true });
      throw error;
    }
    const hub = link && hubStub(spoke.env, call.tenantId, link.sessionId);
    // Memory keeps its labels: only what this call may carry anyway is given (all of it in a control run).
    const remembered =
      call.remember === false || !call.memory ? [] : spoke.memory(AGENT_MEMORY, call.memory.mayRead);
    const rememberedLevels = [...new Set(remembered.flatMap((r) => r.levels ?? []))];
    const outcome = await runAgent({
      app,
      ...(hub &&
        link && {
          hub: {
            find: (name) => hub.discover(name),
            request: (fxId, request, read, carried) =>
              hub.requestCollaboration({ ...link, fromApp: app.name, fxId, request, read, carried }),
            outcome: (consentId) => hub.collaborationOutcome(consentId),
            withdraw: (consentId) => hub.withdrawCollaboration(consentId),
          },
        }),
      functionality: fn,
      request: call.request as Record<string, unknown>,
      memory: remembered.map(({ levels: _levels, ...record }) => record),
      idempotencyKey: call.idempotencyKey,
      callId: call.callId,
      settings: { ...agent, ...model, ai: spoke.env.AI },
      carries: [...(call.memory ? [call.memory.carries] : []), ...rememberedLevels],
      readRequest: readOfRequest(call.request, agent.trustedArgs, remembered.length > 0),
    });
    recordTokens(spoke.env, call.tenantId, outcome.tokens);
    const held = [...rememberedLevels, ...(outcome.ok ? outcome.relayed : [])];
    if (!outcome.ok) {
      const { events, rule } = outcome;
      return undelivered(outcome.code, outcome.message, { agent: { events, held, ...(rule && { rule }) } });
    }
    const { value, readUntrusted, relayed, events } = outcome;
    return { ok: true, value, agent: { readUntrusted, relayed, remembered: rememberedLevels, events, held } };
  },
});

/**
 * What an agent reads besides its tools, in the user's words: its developer's instructions always
 * (app-written text), request data the user did not write, and its memory.
 */
function readOfRequest(request: unknown, trusted: readonly string[], remembers: boolean): string[] {
  const untrustedArgs =
    request !== null && typeof request === "object" && Object.keys(request).some((k) => !trusted.includes(k));
  return [
    "its developer's instructions",
    ...(untrustedArgs ? ["request data you did not write"] : []),
    ...(remembers ? ["its memory of earlier requests"] : []),
  ];
}
