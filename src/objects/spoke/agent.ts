import {
  type ConfirmedDestinations,
  functionalitySource,
  toolSource,
} from "../../apps/destination-review.ts";
import type { Functionality, Manifest } from "../../apps/manifest.ts";
import { schemaViolations, valueProblems } from "../../apps/schemas.ts";
import {
  type AgentCallSettings,
  type AgentEvent,
  COLLABORATION_TOOL,
  type CollaborationReply,
  type Discovery,
  type SpokeErrorCode,
} from "../../contracts.ts";
import {
  type AiBinding,
  type ChatMessage,
  complete,
  type ModelConfig,
  ModelError,
  type ModelLimits,
} from "../../llm/index.ts";
import { isRecord, type VisorCheck, type VisorTool, visorAudit } from "../../policy/index.ts";
import { DEFAULT_LIMITS, postSigned } from "./endpoint.ts";

/**
 * An agentic app's loop, run inside its SpokeDO: the app's own model (role `spoke`) sees only its
 * own instructions, the hub's request and its memory of this user; every tool call it proposes is
 * trapped by the visor before it reaches the app. Bounded in turns, time and tokens.
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

/** The two tools every agent gets when its hub allows collaboration: find, then request. */
const FIND_TOOL = "lattice_find";
const COLLABORATION_TOOLS = [
  {
    name: FIND_TOOL,
    description:
      "Find another functionality by its shared name (e.g. ride.quote): returns an id and its formats.",
    parameters: {
      type: "object",
      properties: { functionality: { type: "string" } },
      required: ["functionality"],
    },
  },
  {
    name: COLLABORATION_TOOL,
    description:
      "Ask for another functionality by the id lattice_find gave; the user decides whether it goes.",
    parameters: {
      type: "object",
      properties: { fxId: { type: "string" }, request: { type: "object" } },
      required: ["fxId", "request"],
    },
  },
];

export interface AgentRun {
  app: { name: string; secrets: string[]; manifest: Manifest; confirmedDestinations?: ConfirmedDestinations };
  hub?: HubLink;
  functionality: Functionality;
  request: Record<string, unknown>;
  memory: unknown[];
  /** The confidentiality levels of what the agent holds from the start: the hub's request and its memory. */
  carries: string[];
  /** What it reads besides its tools, in the user's words (its developer's instructions, memory…). */
  readRequest: string[];
  idempotencyKey: string;
  callId: string;
  settings: AgentSettings;
}

export type AgentOutcome =
  | {
      ok: true;
      value: unknown;
      readUntrusted: boolean;
      /** Confidentiality of other apps' answers it read (collaboration): its answer carries them. */
      relayed: string[];
      events: AgentEvent[];
      tokens: number;
    }
  | {
      ok: false;
      code: SpokeErrorCode;
      message: string;
      /** visor_refused: the rule that refused the call. */
      rule?: VisorCheck;
      readUntrusted: boolean;
      events: AgentEvent[];
      tokens: number;
    };

const MAX_CALLS_PER_TURN = 8;

/** How an event names a proposed tool the agent does not have. */
const UNKNOWN_TOOL = "(a tool the app does not have)";

export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const agent = run.app.manifest.agent!;
  const fn = run.functionality;
  const { settings } = run;
  const declared = Object.hasOwn(agent.functionalities, fn.name)
    ? (agent.functionalities[fn.name] ?? [])
    : [];
  // Collaboration is a tool like any other: only a functionality that declares it may ask other apps.
  const collaborates = run.hub !== undefined && declared.includes(COLLABORATION_TOOL);
  const allowed = collaborates ? [...declared, FIND_TOOL] : declared.filter((t) => t !== COLLABORATION_TOOL);
  /** What the hub said of each functionality this agent found: the visor judges requests by it. */
  const found = new Map<string, Discovery>();
  // I pins to the destinations the request was given: declared (catalog entry, manifest) or confirmed
  // by the admin, not inferred (an inferred path would widen what I lets through).
  const confirmed = run.app.confirmedDestinations;
  const destinations = [
    ...new Set([...settings.destinations, ...(functionalitySource(fn, confirmed).destinations ?? [])]),
  ];
  // Each tool with its schema and the admin's list: the visor infers the destinations not declared.
  const visorTools: VisorTool[] = agent.tools.map((t) => ({ name: t.name, ...toolSource(t, confirmed) }));
  const maxTurns = settings.maxTurns ?? 8;
  const maxTokens = settings.maxTokens ?? 60_000;
  const deadline = Date.now() + (settings.maxMs ?? 60_000);
  const events: AgentEvent[] = [];
  let tokens = 0;
  // The app's memory holds what it read before: content, so untrusted from the start.
  let readUntrusted = run.memory.length > 0;
  let irreversibleDone = false;
  /** Confidentiality levels of other apps' answers this agent read: its answer carries them. */
  const relayed: string[] = [];
  let exceptions = 0;
  const end = (code: SpokeErrorCode, message: string, rule?: VisorCheck): AgentOutcome => ({
    ok: false,
    code,
    message,
    ...(rule && { rule }),
    readUntrusted,
    events,
    tokens,
  });

  const messages: ChatMessage[] = [
    {
      role: "system",
      content:
        `${agent.instructions}\n\nYou are serving "${fn.name}": ${fn.description}\n` +
        `When done, answer with only JSON matching this schema: ${JSON.stringify(fn.response)}`,
    },
    ...(run.memory.length
      ? [
          {
            role: "user" as const,
            content: `Your earlier interactions with this user:\n${JSON.stringify(run.memory)}`,
          },
        ]
      : []),
    { role: "user", content: JSON.stringify({ functionality: fn.name, request: run.request }) },
  ];
  const tools = agent.tools
    .filter((t) => allowed.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
    .concat(collaborates ? COLLABORATION_TOOLS : []);
  let usedTools = false;
  const read = () => [
    ...run.readRequest,
    ...(usedTools ? ["content its tools returned"] : []),
    ...(relayed.length ? ["other apps' answers"] : []),
  ];

  for (let turn = 0; turn < maxTurns; turn++) {
    if (Date.now() > deadline) return end("agent_time_limit", "the app's agent ran out of time");
    let answer: Awaited<ReturnType<typeof complete>>;
    try {
      answer = await complete(settings.model, { role: "spoke", messages, tools }, settings.limits, {
        ai: settings.ai,
      });
    } catch (error) {
      if (error instanceof ModelError) return end(error.code, error.message);
      throw error;
    }
    tokens += answer.usage.inputTokens + answer.usage.outputTokens;
    if (tokens > maxTokens) return end("agent_token_limit", "the app's agent used up its token budget");
    if (!answer.toolCalls.length) return finish(answer.text);
    if (answer.toolCalls.length > MAX_CALLS_PER_TURN) {
      return end("agent_too_many_calls", `the app's agent proposed ${answer.toolCalls.length} calls at once`);
    }
    messages.push({ role: "assistant", content: answer.text || null, toolCalls: answer.toolCalls });
    for (const [i, call] of answer.toolCalls.entries()) {
      const args = parseArgs(call.arguments);
      const exception = visorAudit({
        functionality: { name: fn.name, irreversible: fn.irreversible, destinations },
        tools: [...visorTools, ...collaborationTools(found, args)],
        allowed,
        request: run.request,
        trusted: pick(run.request, settings.trustedArgs),
        // A request to another app is judged by what it asks of that app, like an internal tool's call.
        call: {
          tool: call.name,
          args:
            call.name === COLLABORATION_TOOL ? (isRecord(args?.request) ? args.request : {}) : (args ?? {}),
        },
        checks: settings.checks,
        irreversibleDone,
      });
      if (exception) {
        // Named only if it is a tool this agent has: the proposed name is the model's own text.
        const known =
          agent.tools.some((t) => t.name === call.name) ||
          call.name === FIND_TOOL ||
          call.name === COLLABORATION_TOOL
            ? call.name
            : UNKNOWN_TOOL;
        events.push({ type: "visor_exception", tool: known, args, exception });
        if (++exceptions > settings.selfCorrection) {
          return end("visor_refused", `the visor refused ${known} (${exception.type})`, exception.type);
        }
        // The exception takes the tool result's place: the guest learns the rule, never more.
        messages.push({
          role: "tool",
          toolCallId: call.id,
          content: JSON.stringify({ semanticException: exception }),
        });
        continue;
      }
      if (run.hub && collaborates && (call.name === FIND_TOOL || call.name === COLLABORATION_TOOL)) {
        const carried = [...new Set([...run.carries, ...relayed])];
        const { reply, confidentiality, attempted } = await collaborate(
          run.hub,
          call.name,
          args ?? {},
          { read: [...new Set(read())], carried, found },
          deadline,
        );
        events.push({
          type: "collaboration",
          tool: call.name,
          args,
          message: JSON.stringify(reply).slice(0, 500),
        });
        messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify(reply) });
        if (call.name === COLLABORATION_TOOL) readUntrusted = true; // another app's answer is content too
        if (confidentiality) relayed.push(confidentiality);
        // Relayed (answered, or failed once it left the hub): that was this request's one
        // irreversible action. A refused or denied request did nothing, so the agent's own task
        // may still make its one. An id it never found counts as irreversible, as for the visor.
        if ((confidentiality || attempted) && (found.get(String(args?.fxId))?.irreversible ?? true))
          irreversibleDone = true;
        continue;
      }
      const tool = agent.tools.find((t) => t.name === call.name);
      if (!tool) {
        // Reached only with S off (the ablation control): no such tool to call.
        messages.push({
          role: "tool",
          toolCallId: call.id,
          content: JSON.stringify({ error: "no such tool" }),
        });
        continue;
      }
      const problems = args ? valueProblems(tool.parameters, args) : ["arguments are not a JSON object"];
      if (problems.length) {
        events.push({ type: "tool_failed", tool: call.name, message: problems[0] });
        messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify({ error: problems }) });
        continue;
      }
      events.push({ type: "tool_call", tool: call.name, args });
      if (tool.irreversible) irreversibleDone = true;
      const result = await postSigned(
        `${(run.app.manifest.endpoint ?? "").replace(/\/+$/, "")}/${call.name}`,
        JSON.stringify(args),
        {
          secrets: run.app.secrets,
          // The one irreversible action keeps the hub's key: a replayed step cannot repeat it.
          idempotencyKey: tool.irreversible
            ? `${run.idempotencyKey}:irreversible`
            : `${run.idempotencyKey}:${turn}:${i}`,
          callId: run.callId,
        },
        DEFAULT_LIMITS,
      );
      readUntrusted = true; // whatever the app returned may carry someone else's words
      usedTools = true;
      if (!result.ok) events.push({ type: "tool_failed", tool: call.name, message: result.message });
      const content = result.ok ? JSON.stringify(result.value) : JSON.stringify({ error: result.message });
      messages.push({ role: "tool", toolCallId: call.id, content });
    }
  }
  return end("agent_turn_limit", `the app's agent did not finish within ${maxTurns} turns`);

  function finish(text: string): AgentOutcome {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return end("invalid_response", "the app's agent did not answer JSON");
    }
    // Named by the place in the declared schema only: the answer's keys and values are the model's.
    const problems = schemaViolations(fn.response, value);
    if (problems.length)
      return end("invalid_response", `the app's agent answer breaks its schema: ${problems[0]}`);
    return { ok: true, value, readUntrusted, relayed, events, tokens };
  }
}

/** Relays a collaboration tool call to the hub and waits (bounded) for the user's decision. */
async function collaborate(
  hub: HubLink,
  tool: string,
  args: Record<string, unknown>,
  asker: { read: string[]; carried: string[]; found: Map<string, Discovery> },
  deadline: number,
): Promise<{ reply: unknown; confidentiality?: string; attempted?: boolean }> {
  if (tool === FIND_TOOL) {
    const discovery = await hub.find(String(args.functionality ?? ""));
    if (!discovery) return { reply: { error: "unknown functionality" } };
    asker.found.set(discovery.fxId, discovery);
    return { reply: { fxId: discovery.fxId, request: discovery.request, response: discovery.response } };
  }
  let reply = await hub.request(String(args.fxId ?? ""), args.request ?? {}, asker.read, asker.carried);
  while (reply.ok && reply.state === "pending" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    reply = await hub.outcome(reply.consentId);
  }
  if (!reply.ok) return { reply: { error: reply.message }, attempted: reply.attempted === true };
  if (reply.state === "pending") {
    await hub.withdraw(reply.consentId);
    return { reply: { error: "no answer in time" } };
  }
  return { reply: { answer: reply.value }, confidentiality: reply.confidentiality };
}

/**
 * The collaboration tools as the visor sees them: a request to a functionality found in this run
 * takes its irreversibility, destinations and request schema (for the inferred ones) from the hub;
 * one to an id it never found is read fail-closed (irreversible, every value a destination).
 */
function collaborationTools(
  found: ReadonlyMap<string, Discovery>,
  args: Record<string, unknown> | null,
): VisorTool[] {
  const target = found.get(String(args?.fxId ?? ""));
  return [
    // Lattice's own look-up sends nothing anywhere.
    { name: FIND_TOOL, irreversible: false, destinations: [], confirmed: true },
    target
      ? {
          name: COLLABORATION_TOOL,
          irreversible: target.irreversible,
          ...(target.destinations && { destinations: target.destinations }),
          parameters: target.request,
          confirmed: target.confirmed,
        }
      : { name: COLLABORATION_TOOL, irreversible: true },
  ];
}

function pick(request: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => Object.hasOwn(request, n)).map((n) => [n, request[n]]));
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
