import type { ConfirmedDestinations } from "../../apps/destination-review.ts";
import type { Manifest } from "../../apps/manifest.ts";
import type { AgentCallSettings, CollaborationReply, Discovery } from "../../contracts.ts";
import { type AiBinding, complete, type ModelConfig, ModelError, type ModelLimits } from "../../llm/index.ts";
import { failure } from "../../result.ts";
import {
  type AgentAction,
  type AgentOutcome,
  type AgentSetup,
  type AgentStep,
  agentObserve,
  agentStart,
  agentTurn,
  type ModelAnswer,
} from "../../runtime/index.ts";
import { DEFAULT_LIMITS, postSigned } from "./endpoint.ts";

/**
 * An agentic app's loop, run inside its SpokeDO: the app's own model (role `spoke`) sees only its
 * own instructions, the hub's request and its memory of this user; every tool call it proposes is
 * trapped by the visor before it reaches the app. Bounded in turns, time and tokens. What to do
 * next is decided by the reducer (runtime/agent-turn.ts); this driver only does it: asks the
 * model, calls the app's tools, relays to the hub, and feeds back what came of each.
 */

/** The hub's settings for this call and the model the spoke resolved for it. */
export interface AgentSettings extends Omit<AgentCallSettings, "modelTimeoutMs" | "collaboration"> {
  model: ModelConfig;
  limits: ModelLimits;
  /** The Worker's AI binding, for a workers-ai model. */
  ai?: AiBinding;
  maxTurns?: number;
  maxTokens?: number;
  maxMs?: number;
}

/** The spoke's line to its hub for collaboration (ISC); absent when no hub query is running. */
export interface HubLink {
  find(name: string): Promise<Discovery | null>;
  /** `read`: what the agent read, in the user's words; `carried`: its confidentiality levels. */
  request(fxId: string, request: unknown, read: string[], carried: string[]): Promise<CollaborationReply>;
  outcome(consentId: string): Promise<CollaborationReply>;
  withdraw(consentId: string): Promise<void>;
}

/** What the spoke runs an agent with: the reducer's setup, with the secrets, hub and model it keeps to itself. */
export interface AgentRun extends Omit<AgentSetup, "app" | "settings" | "hub"> {
  app: { name: string; secrets: string[]; manifest: Manifest; confirmedDestinations?: ConfirmedDestinations };
  hub?: HubLink;
  callId: string;
  settings: AgentSettings;
}

export type { AgentOutcome };

export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const { model: _model, limits: _limits, ai: _ai, ...settings } = run.settings;
  // The reducer gets what it decides by: no secrets, no model, no hub stub.
  const setup = {
    app: { manifest: run.app.manifest, confirmedDestinations: run.app.confirmedDestinations },
    functionality: run.functionality,
    request: run.request,
    memory: run.memory,
    carries: run.carries,
    readRequest: run.readRequest,
    idempotencyKey: run.idempotencyKey,
    settings,
    hub: run.hub !== undefined,
  };
  let step: AgentStep = agentStart(setup, Date.now());
  for (;;) {
    const { state, action } = step;
    switch (action.type) {
      case "done":
        return action.outcome;
      case "model":
        step = agentTurn(state, await ask(run.settings, action), Date.now());
        break;
      case "tool": {
        const result = await callTool(run, action);
        step = agentObserve(state, { type: "tool", result }, Date.now());
        break;
      }
      case "find": {
        const discovery = await hubOf(run).find(action.functionality);
        step = agentObserve(state, { type: "find", discovery }, Date.now());
        break;
      }
      case "relay": {
        const reply = await relay(hubOf(run), action, state.deadline);
        step = agentObserve(state, { type: "relay", reply }, Date.now());
        break;
      }
    }
  }
}

async function ask(
  settings: AgentSettings,
  action: Extract<AgentAction, { type: "model" }>,
): Promise<ModelAnswer> {
  try {
    const { text, toolCalls, usage } = await complete(
      settings.model,
      { role: "spoke", messages: [...action.messages], tools: [...action.tools] },
      settings.limits,
      { ai: settings.ai },
    );
    return { ok: true, text, toolCalls, usage };
  } catch (error) {
    if (error instanceof ModelError) return failure(error.code, error.message);
    throw error;
  }
}

/** One of the app's own tools: a signed POST to its endpoint, as the app's functionalities are called. */
async function callTool(run: AgentRun, action: Extract<AgentAction, { type: "tool" }>) {
  const result = await postSigned(
    `${(run.app.manifest.endpoint ?? "").replace(/\/+$/, "")}/${action.tool}`,
    JSON.stringify(action.args),
    { secrets: run.app.secrets, idempotencyKey: action.idempotencyKey, callId: run.callId },
    DEFAULT_LIMITS,
  );
  return result.ok
    ? { ok: true as const, value: result.value }
    : { ok: false as const, message: result.message };
}

/** Relays a request to the hub and waits (bounded) for the user's decision; one still pending is withdrawn. */
async function relay(
  hub: HubLink,
  action: Extract<AgentAction, { type: "relay" }>,
  deadline: number,
): Promise<CollaborationReply> {
  let reply = await hub.request(action.fxId, action.request, action.read, action.carried);
  while (reply.ok && reply.state === "pending" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    reply = await hub.outcome(reply.consentId);
  }
  if (reply.ok && reply.state === "pending") await hub.withdraw(reply.consentId);
  return reply;
}

function hubOf(run: AgentRun): HubLink {
  // The reducer offers the collaboration tools only when a hub is linked.
  if (!run.hub) throw new Error("a collaboration action with no hub linked");
  return run.hub;
}
