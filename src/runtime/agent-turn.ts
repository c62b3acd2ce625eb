import { schemaViolations, valueProblems } from "../apps/schemas.ts";
import { type AgentEvent, COLLABORATION_TOOL, type Discovery, type SpokeErrorCode } from "../contracts.ts";
import { isRecord, type VisorCheck, type VisorTool, visorAudit } from "../policy/index.ts";
import {
  type AgentAction,
  type AgentMessage,
  type AgentObservation,
  type AgentOutcome,
  type AgentSetup,
  type AgentState,
  type AgentStep,
  FIND_TOOL,
  initialAgentState,
  MAX_CALLS_PER_TURN,
  type ModelAnswer,
  type ProposedCall,
  type TaintLedger,
  UNKNOWN_TOOL,
} from "./agent-state.ts";

/**
 * An agentic app's loop as a reducer (pure): the spoke's driver asks the model, makes the calls
 * and feeds back what came of them; every decision — which proposed call the visor lets through,
 * when the loop ends, how its answer is labeled — is taken here. What labels the answer is one
 * value, the ledger, so a test reads it after any scripted run. Calls are made one at a time:
 * a relay's outcome decides how the visor judges the next call of the same turn.
 */

/** A run's first step: its first model call (or the end, if its limits allow none). */
export function agentStart(setup: AgentSetup, now: number): AgentStep {
  return askModel(initialAgentState(setup, now), now);
}

/** The model answered (or failed): the run ends, or the answer's calls are taken up one by one. */
export function agentTurn(state: AgentState, answer: ModelAnswer, now: number): AgentStep {
  if (state.awaiting || state.taken < state.calls.length) throw new Error("a model answer mid-turn");
  if (!answer.ok) return end(state, answer.code, answer.message);
  const tokens = state.tokens + answer.usage.inputTokens + answer.usage.outputTokens;
  const counted = { ...state, tokens };
  if (tokens > state.rules.maxTokens)
    return end(counted, "agent_token_limit", "the app's agent used up its token budget");
  if (!answer.toolCalls.length) return finish(counted, answer.text);
  if (answer.toolCalls.length > MAX_CALLS_PER_TURN) {
    const many = `the app's agent proposed ${answer.toolCalls.length} calls at once`;
    return end(counted, "agent_too_many_calls", many);
  }
  const assistant: AgentMessage = {
    role: "assistant",
    content: answer.text || null,
    toolCalls: answer.toolCalls,
  };
  return takeUp(
    { ...counted, messages: [...state.messages, assistant], calls: answer.toolCalls, taken: 0 },
    now,
  );
}

/** What came of the awaited call: it joins the conversation and the ledger; the turn goes on. */
export function agentObserve(state: AgentState, seen: AgentObservation, now: number): AgentStep {
  const awaiting = state.awaiting;
  if (awaiting?.kind !== seen.type)
    throw new Error(`a ${seen.type} observation with no such call awaiting one`);
  const { call, args } = awaiting;
  const told = (content: unknown, event?: AgentEvent): AgentState => ({
    ...state,
    awaiting: undefined,
    events: event ? [...state.events, event] : state.events,
    messages: [...state.messages, { role: "tool", toolCallId: call.id, content: JSON.stringify(content) }],
  });
  const collaboration = (reply: unknown): AgentEvent => ({
    type: "collaboration",
    tool: call.name,
    args,
    message: JSON.stringify(reply).slice(0, 500),
  });
  if (seen.type === "tool") {
    const { result } = seen;
    const failed = !result.ok && { type: "tool_failed" as const, tool: call.name, message: result.message };
    const next = told(result.ok ? result.value : { error: result.message }, failed || undefined);
    // Whatever the app returned may carry someone else's words.
    return takeUp({ ...next, ledger: { ...next.ledger, readUntrusted: true, readTools: true } }, now);
  }
  if (seen.type === "find") {
    const d = seen.discovery;
    const reply = d
      ? { fxId: d.fxId, request: d.request, response: d.response }
      : { error: "unknown functionality" };
    const next = told(reply, collaboration(reply));
    return takeUp(d ? { ...next, found: { ...next.found, [d.fxId]: d } } : next, now);
  }
  const r = seen.reply;
  const reply = !r.ok
    ? { error: r.message }
    : r.state === "pending"
      ? { error: "no answer in time" }
      : { answer: r.value };
  const confidentiality = r.ok && r.state === "answered" ? r.confidentiality : undefined;
  const attempted = !r.ok && r.attempted === true;
  const next = told(reply, collaboration(reply));
  const target = Object.hasOwn(state.found, String(args?.fxId)) ? state.found[String(args?.fxId)] : undefined;
  // Relayed (answered, or failed once it left the hub): that was this request's one irreversible
  // action. A refused or denied request did nothing, so the agent's own task may still make its
  // one. An id it never found counts as irreversible, as for the visor.
  const acted = Boolean(confidentiality || attempted) && (target?.irreversible ?? true);
  const ledger: TaintLedger = {
    ...next.ledger,
    readUntrusted: true, // another app's answer is content too
    relayed: confidentiality ? [...next.ledger.relayed, confidentiality] : next.ledger.relayed,
    irreversibleDone: next.ledger.irreversibleDone || acted,
  };
  return takeUp({ ...next, ledger }, now);
}

/** The next proposed call the visor lets through becomes the action; with none left, the next turn. */
function takeUp(start: AgentState, now: number): AgentStep {
  let state = start;
  const { rules } = state;
  while (state.taken < state.calls.length) {
    const i = state.taken;
    const call = state.calls[i]!;
    state = { ...state, taken: i + 1 };
    const args = parseArgs(call.arguments);
    const exception = visorAudit({
      functionality: {
        name: rules.fn.name,
        irreversible: rules.fn.irreversible,
        destinations: rules.destinations,
      },
      tools: [...rules.visorTools, ...collaborationTools(state.found, args)],
      allowed: rules.allowed,
      request: rules.request,
      trusted: rules.trusted,
      // A request to another app is judged by what it asks of that app, like an internal tool's call.
      call: {
        tool: call.name,
        args: call.name === COLLABORATION_TOOL ? (isRecord(args?.request) ? args.request : {}) : (args ?? {}),
      },
      checks: rules.settings.checks,
      irreversibleDone: state.ledger.irreversibleDone,
    });
    if (exception) {
      // Named only if it is a tool this agent has: the proposed name is the model's own text.
      const known =
        rules.manifestTools.some((t) => t.name === call.name) ||
        call.name === FIND_TOOL ||
        call.name === COLLABORATION_TOOL
          ? call.name
          : UNKNOWN_TOOL;
      state = {
        ...state,
        exceptions: state.exceptions + 1,
        events: [...state.events, { type: "visor_exception", tool: known, args, exception }],
      };
      if (state.exceptions > rules.settings.selfCorrection)
        return end(state, "visor_refused", `the visor refused ${known} (${exception.type})`, exception.type);
      // The exception takes the tool result's place: the guest learns the rule, never more.
      state = toolMessage(state, call, { semanticException: exception });
      continue;
    }
    const given = args ?? {};
    if (rules.collaborates && call.name === FIND_TOOL) {
      const functionality = String(given.functionality ?? "");
      return {
        state: { ...state, awaiting: { kind: "find", call, args } },
        action: { type: "find", functionality },
      };
    }
    if (rules.collaborates && call.name === COLLABORATION_TOOL) {
      const { ledger } = state;
      const read = [
        ...rules.readRequest,
        ...(ledger.readTools ? ["content its tools returned"] : []),
        ...(ledger.relayed.length ? ["other apps' answers"] : []),
      ];
      const action: AgentAction = {
        type: "relay",
        fxId: String(given.fxId ?? ""),
        // What the visor judged above, and nothing else: a request that is no object was judged as `{}`.
        request: isRecord(given.request) ? given.request : {},
        read: [...new Set(read)],
        carried: [...new Set([...ledger.carries, ...ledger.relayed])],
      };
      return { state: { ...state, awaiting: { kind: "relay", call, args } }, action };
    }
    const tool = rules.manifestTools.find((t) => t.name === call.name);
    if (!tool) {
      // Reached only with S off (the ablation control): no such tool to call.
      state = toolMessage(state, call, { error: "no such tool" });
      continue;
    }
    const problems = args ? valueProblems(tool.parameters, args) : ["arguments are not a JSON object"];
    if (problems.length) {
      const failed: AgentEvent = { type: "tool_failed", tool: call.name, message: problems[0] };
      state = { ...toolMessage(state, call, { error: problems }), events: [...state.events, failed] };
      continue;
    }
    const ledger = { ...state.ledger, irreversibleDone: state.ledger.irreversibleDone || tool.irreversible };
    const action: AgentAction = {
      type: "tool",
      tool: tool.name,
      args: given,
      // The one irreversible action keeps the hub's key: a replayed step cannot repeat it.
      idempotencyKey: tool.irreversible
        ? `${rules.idempotencyKey}:irreversible`
        : `${rules.idempotencyKey}:${state.turn}:${i}`,
    };
    const events = [...state.events, { type: "tool_call" as const, tool: call.name, args }];
    return { state: { ...state, ledger, events, awaiting: { kind: "tool", call, args } }, action };
  }
  return askModel({ ...state, turn: state.turn + 1, calls: [], taken: 0 }, now);
}

function askModel(state: AgentState, now: number): AgentStep {
  const { maxTurns } = state.rules;
  if (state.turn >= maxTurns)
    return end(state, "agent_turn_limit", `the app's agent did not finish within ${maxTurns} turns`);
  if (now > state.deadline) return end(state, "agent_time_limit", "the app's agent ran out of time");
  return { state, action: { type: "model", messages: state.messages, tools: state.rules.offered } };
}

function finish(state: AgentState, text: string): AgentStep {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return end(state, "invalid_response", "the app's agent did not answer JSON");
  }
  // Named by the place in the declared schema only: the answer's keys and values are the model's.
  const problems = schemaViolations(state.rules.fn.response, value);
  if (problems.length)
    return end(state, "invalid_response", `the app's agent answer breaks its schema: ${problems[0]}`);
  const { ledger, events, tokens } = state;
  const outcome: AgentOutcome = {
    ok: true,
    value,
    readUntrusted: ledger.readUntrusted,
    relayed: [...ledger.relayed],
    events: [...events],
    tokens,
  };
  return { state, action: { type: "done", outcome } };
}

function end(state: AgentState, code: SpokeErrorCode, message: string, rule?: VisorCheck): AgentStep {
  const outcome: AgentOutcome = {
    ok: false,
    code,
    message,
    ...(rule && { rule }),
    readUntrusted: state.ledger.readUntrusted,
    events: [...state.events],
    tokens: state.tokens,
  };
  return { state, action: { type: "done", outcome } };
}

function toolMessage(state: AgentState, call: ProposedCall, content: unknown): AgentState {
  const message: AgentMessage = { role: "tool", toolCallId: call.id, content: JSON.stringify(content) };
  return { ...state, messages: [...state.messages, message] };
}

/**
 * The collaboration tools as the visor sees them: a request to a functionality found in this run
 * takes its irreversibility, destinations and request schema (for the inferred ones) from the hub;
 * one to an id it never found is read fail-closed (irreversible, every value a destination).
 */
function collaborationTools(
  found: Readonly<Record<string, Discovery>>,
  args: Record<string, unknown> | null,
): VisorTool[] {
  const id = String(args?.fxId ?? "");
  const target = Object.hasOwn(found, id) ? found[id] : undefined;
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

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
