import { type ConfirmedDestinations, functionalitySource, toolSource } from "../apps/destination-review.ts";
import type { Functionality, Manifest } from "../apps/manifest.ts";
import {
  type AgentCallSettings,
  type AgentEvent,
  COLLABORATION_TOOL,
  type CollaborationReply,
  type Discovery,
  type SpokeErrorCode,
} from "../contracts.ts";
import type { VisorCheck, VisorTool } from "../policy/index.ts";
import type { Failure, Ok } from "../result.ts";

/**
 * The agent loop's vocabulary (agent-turn.ts is the reducer): what a run starts from, its state
 * with the ledger that labels its answer, the actions the spoke's driver takes and what it feeds back.
 */

/** The two tools every agent gets when its hub allows collaboration: find, then request. */
export const FIND_TOOL = "lattice_find";
const COLLABORATION_TOOLS: ToolSpec[] = [
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

export const MAX_CALLS_PER_TURN = 8;

/** How an event names a proposed tool the agent does not have. */
export const UNKNOWN_TOOL = "(a tool the app does not have)";

/** What a run starts from: the app as reviewed, the hub's request and settings, what it remembers. */
export interface AgentSetup {
  app: { manifest: Manifest; confirmedDestinations?: ConfirmedDestinations };
  functionality: Functionality;
  request: Record<string, unknown>;
  memory: unknown[];
  /** The confidentiality levels of what the agent holds from the start: the hub's request and its memory. */
  carries: string[];
  /** What it reads besides its tools, in the user's words (its developer's instructions, memory…). */
  readRequest: string[];
  idempotencyKey: string;
  settings: Omit<AgentCallSettings, "modelTimeoutMs" | "collaboration"> & {
    maxTurns?: number;
    maxTokens?: number;
    maxMs?: number;
  };
  /** A hub query is running, so the agent may ask other apps (if its functionality declares it). */
  hub: boolean;
}

/** A message of the agent's conversation (the model client's ChatMessage, which this layer cannot import). */
export type AgentMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ProposedCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export interface ProposedCall {
  id: string;
  name: string;
  /** Raw JSON text as the model wrote it. */
  arguments: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The model's answer to a turn, or why there is none (the model client's error). */
export type ModelAnswer =
  | Ok<{ text: string; toolCalls: ProposedCall[]; usage: { inputTokens: number; outputTokens: number } }>
  | Failure<SpokeErrorCode>;

/** What labels the agent's answer, changed only by the reducer. */
export interface TaintLedger {
  /** It read content: its memory, a tool's result, another app's answer. Its answer is then untrusted. */
  readonly readUntrusted: boolean;
  /** It read what its tools returned (said to the user when it asks another app). */
  readonly readTools: boolean;
  /** Confidentiality levels it holds from the start: the hub's request and its memory. */
  readonly carries: readonly string[];
  /** Confidentiality levels of other apps' answers it read: its answer carries them. */
  readonly relayed: readonly string[];
  /** This request's one irreversible action was made (or may have been, by a relay that left the hub). */
  readonly irreversibleDone: boolean;
}

/** Fixed for the run: what the visor judges by, and the limits. */
export interface AgentRules {
  readonly fn: Functionality;
  readonly manifestTools: NonNullable<Manifest["agent"]>["tools"];
  readonly allowed: readonly string[];
  readonly collaborates: boolean;
  readonly destinations: readonly string[];
  readonly visorTools: readonly VisorTool[];
  readonly offered: readonly ToolSpec[];
  readonly request: Record<string, unknown>;
  readonly trusted: Record<string, unknown>;
  readonly settings: AgentSetup["settings"];
  readonly readRequest: readonly string[];
  readonly idempotencyKey: string;
  readonly maxTurns: number;
  readonly maxTokens: number;
}

export interface AgentState {
  readonly rules: AgentRules;
  /** When the run must have ended (ms since the epoch). */
  readonly deadline: number;
  readonly turn: number;
  readonly tokens: number;
  readonly exceptions: number;
  readonly ledger: TaintLedger;
  readonly events: readonly AgentEvent[];
  readonly messages: readonly AgentMessage[];
  /** What the hub said of each functionality this agent found: the visor judges requests by it. */
  readonly found: Readonly<Record<string, Discovery>>;
  /** This turn's proposed calls, and how many of them were taken up. */
  readonly calls: readonly ProposedCall[];
  readonly taken: number;
  /** The call whose result the driver is to feed back. */
  readonly awaiting?: {
    readonly kind: AgentObservation["type"];
    readonly call: ProposedCall;
    readonly args: Record<string, unknown> | null;
  };
}

export type AgentOutcome =
  | Ok<{ value: unknown; readUntrusted: boolean; relayed: string[]; events: AgentEvent[]; tokens: number }>
  | (Failure<SpokeErrorCode> & {
      /** visor_refused: the rule that refused the call. */
      rule?: VisorCheck;
      readUntrusted: boolean;
      events: AgentEvent[];
      tokens: number;
    });

/** What the driver does next. */
export type AgentAction =
  | { type: "model"; messages: readonly AgentMessage[]; tools: readonly ToolSpec[] }
  /** One of the app's tools, over its endpoint. */
  | { type: "tool"; tool: string; args: Record<string, unknown>; idempotencyKey: string }
  | { type: "find"; functionality: string }
  /** A request to another app through the hub; `read` in the user's words, `carried` its levels. */
  | { type: "relay"; fxId: string; request: unknown; read: string[]; carried: string[] }
  | { type: "done"; outcome: AgentOutcome };

/** What came of a `tool`, `find` or `relay` action. A relay still pending was withdrawn: no answer in time. */
export type AgentObservation =
  | { type: "tool"; result: Ok<{ value: unknown }> | { ok: false; message: string } }
  | { type: "find"; discovery: Discovery | null }
  | { type: "relay"; reply: CollaborationReply };

export interface AgentStep {
  state: AgentState;
  action: AgentAction;
}

/** The state a run starts in, before its first model call. */
export function initialAgentState(setup: AgentSetup, now: number): AgentState {
  const agent = setup.app.manifest.agent;
  if (!agent) throw new Error("an agent run for an app without an agent");
  const fn = setup.functionality;
  const { settings } = setup;
  const declared = Object.hasOwn(agent.functionalities, fn.name)
    ? (agent.functionalities[fn.name] ?? [])
    : [];
  // Collaboration is a tool like any other: only a functionality that declares it may ask other apps.
  const collaborates = setup.hub && declared.includes(COLLABORATION_TOOL);
  const allowed = collaborates ? [...declared, FIND_TOOL] : declared.filter((t) => t !== COLLABORATION_TOOL);
  // I pins to the destinations the request was given: declared (catalog entry, manifest) or confirmed
  // by the admin, not inferred (an inferred path would widen what I lets through).
  const confirmed = setup.app.confirmedDestinations;
  const destinations = [
    ...new Set([...settings.destinations, ...(functionalitySource(fn, confirmed).destinations ?? [])]),
  ];
  const rules: AgentRules = {
    fn,
    manifestTools: agent.tools,
    allowed,
    collaborates,
    destinations,
    // Each tool with its schema and the admin's list: the visor infers the destinations not declared.
    visorTools: agent.tools.map((t) => ({ name: t.name, ...toolSource(t, confirmed) })),
    offered: agent.tools
      .filter((t) => allowed.includes(t.name))
      .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
      .concat(collaborates ? COLLABORATION_TOOLS : []),
    request: setup.request,
    trusted: pick(setup.request, settings.trustedArgs),
    settings,
    readRequest: setup.readRequest,
    idempotencyKey: setup.idempotencyKey,
    maxTurns: settings.maxTurns ?? 8,
    maxTokens: settings.maxTokens ?? 60_000,
  };
  const messages: AgentMessage[] = [
    {
      role: "system",
      content:
        `${agent.instructions}\n\nYou are serving "${fn.name}": ${fn.description}\n` +
        `When done, answer with only JSON matching this schema: ${JSON.stringify(fn.response)}`,
    },
    ...(setup.memory.length
      ? [
          {
            role: "user" as const,
            content: `Your earlier interactions with this user:\n${JSON.stringify(setup.memory)}`,
          },
        ]
      : []),
    { role: "user", content: JSON.stringify({ functionality: fn.name, request: setup.request }) },
  ];
  const state: AgentState = {
    rules,
    deadline: now + (settings.maxMs ?? 60_000),
    turn: 0,
    tokens: 0,
    exceptions: 0,
    // The app's memory holds what it read before: content, so untrusted from the start.
    ledger: {
      readUntrusted: setup.memory.length > 0,
      readTools: false,
      carries: setup.carries,
      relayed: [],
      irreversibleDone: false,
    },
    events: [],
    messages,
    found: {},
    calls: [],
    taken: 0,
  };
  return state;
}

function pick(request: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => Object.hasOwn(request, n)).map((n) => [n, request[n]]));
}
