import { schemaViolations } from "../apps/schemas.ts";
import type { AgentEvent, SpokeCall, SpokeErrorCode, SpokeResult } from "../contracts.ts";
import { highest, type Lattices, type Policy, type VisorCheck } from "../policy/index.ts";
import type { Failure, Ok } from "../result.ts";
import type { HubEventData } from "./events.ts";
import { StepFailure } from "./failure.ts";
import type { Defences } from "./records.ts";
import type { CallLabels } from "./run-context.ts";
import type { PlanningSnapshot, Target } from "./snapshot.ts";

/**
 * One call of an app's functionality, whoever asks for it: a plan step, or a relay of one agent's
 * request to another app (collaboration). Both go through `callApp`, so both meet the same catalog
 * schemas, carry the tenant's limits and the agent settings, and leave the same trace; only who
 * wrote the arguments differs, and that is decided here, once (`stepCall`, `relayCall`).
 */
export interface AppCall {
  /** The serving functionality, at the version the query was verified against. */
  target: Target;
  request: unknown;
  origin: { kind: "step"; key: string } | { kind: "relay"; consentId: string };
  /** The schema the hub holds the request to before it leaves (null: the app's own, which its spoke checks). */
  requestSchema: Record<string, unknown> | null;
  /** Which arguments carry the user's own words (an agentic app's visor takes destinations only from them). */
  trusted: string[];
  /** The request paths the tenant's catalog entry declares as destinations (the visor's I pins to them). */
  destinations: string[];
  /** What the app's memory of this call is labeled, and which memory an agent may be given. */
  memory: { carries: string; mayRead: string[] | null };
}

/** A plan step's call: the planner's arguments, in catalog mode held to the entry's schema too. */
export function stepCall(
  snapshot: Pick<PlanningSnapshot, "mode" | "destinations">,
  target: Target,
  key: string,
  args: Record<string, unknown>,
  labels: CallLabels,
): AppCall {
  return {
    target,
    request: args,
    origin: { kind: "step", key },
    requestSchema: snapshot.mode === "catalog" ? target.entry.requestSchema : null,
    trusted: labels.trusted,
    destinations: snapshot.destinations[target.tool] ?? [],
    memory: { carries: labels.carries, mayRead: labels.mayRead },
  };
}

/**
 * A relay's call: an agent wrote the request, so no argument is the user's, and the target's agent
 * is given no memory. The entry's schema binds in either mode, so a malformed request is refused
 * before anything leaves the hub (the relay then never counts as attempted).
 */
export function relayCall(
  snapshot: Pick<PlanningSnapshot, "destinations">,
  target: Target,
  consentId: string,
  request: unknown,
  carries: string,
): AppCall {
  return {
    target,
    request,
    origin: { kind: "relay", consentId },
    requestSchema: target.entry.requestSchema,
    trusted: [],
    destinations: snapshot.destinations[target.tool] ?? [],
    memory: { carries, mayRead: [] },
  };
}

/** What every call of one query shares: who asks, and the policy and defences pinned with the query. */
export interface AppCallScope {
  tenantId: string;
  userId: string;
  sessionId: string;
  queryId: string;
  /** False in a private session: the app keeps no memory of the call, and an agent is given none. */
  remember: boolean;
  policy: Policy;
  defences: Defences;
}

export interface AppAnswer {
  value: unknown;
  /** An agentic app read content on the way, so its answer is no more than untrusted. */
  readUntrusted: boolean;
  /** Confidentiality levels of other apps' answers the agent read (collaboration). */
  relayed: string[];
  /** Confidentiality levels of the remembered interactions the agent was given. */
  remembered: string[];
}

/**
 * Why a call gave no answer, and where it stopped: at the hub's check of the request (nothing left
 * the hub), in the app's spoke, or at the hub's check of the answer (the app ran).
 */
export type AppCallFailure = Failure<SpokeErrorCode> & {
  at: "request" | "app" | "response";
  /** Places in the schema the request or answer broke. */
  problems?: string[];
  /** The visor rule that refused an agent's call. */
  rule?: VisorCheck;
};

export type AppCallOutcome = Ok<AppAnswer> | AppCallFailure;

/** The effects of a call: the spoke, ids, and the query's trace. */
export interface AppCallIo {
  send(call: SpokeCall): Promise<SpokeResult>;
  callId(): string;
  digest(text: string): Promise<string>;
  emit(type: "visor_exception", data: HubEventData<"visor_exception">): void;
}

/** Checks the request, calls the spoke, traces the agent's exceptions and checks the answer. */
export async function callApp(scope: AppCallScope, call: AppCall, io: AppCallIo): Promise<AppCallOutcome> {
  const wrong = call.requestSchema ? schemaViolations(call.requestSchema, call.request) : [];
  if (wrong.length)
    return failed("request", "invalid_request", "the request breaks the catalog entry's schema", wrong);
  const result = await io.send(
    spokeCallOf(scope, call, {
      callId: io.callId(),
      idempotencyKey: await io.digest(idempotencySource(scope, call)),
    }),
  );
  for (const event of traceEvents(scope, call, result.events ?? [])) io.emit(event.type, event.data);
  if (!result.ok) {
    return {
      ...failed("app", result.code, result.message, result.problems),
      ...(result.rule && { rule: result.rule }),
    };
  }
  const response = call.target.response ? schemaViolations(call.target.response, result.value) : [];
  if (response.length)
    return failed("response", "invalid_response", "the answer breaks the catalog entry's schema", response);
  return {
    ok: true,
    value: result.value,
    readUntrusted: result.readUntrusted ?? false,
    relayed: result.relayed ?? [],
    remembered: result.remembered ?? [],
  };
}

function failed(
  at: AppCallFailure["at"],
  code: SpokeErrorCode,
  message: string,
  problems?: string[],
): AppCallFailure {
  return { ok: false, code, message, at, ...(problems && { problems }) };
}

/**
 * Stable across retries of the same call, so the app can deduplicate: a step's by its place in the
 * query, a relay's by the consent that allowed it (answered once).
 */
export function idempotencySource(scope: AppCallScope, call: AppCall): string {
  return call.origin.kind === "step"
    ? `${scope.sessionId}:${scope.queryId}:${call.origin.key}`
    : `${scope.sessionId}:${call.origin.consentId}`;
}

/** Where a call sits in the query's trace: a step's key, or a relay's journal mark. */
export const traceKey = (call: AppCall): string =>
  call.origin.kind === "step" ? call.origin.key : `collaboration:${call.origin.consentId}`;

/**
 * The message to the spoke. Every call carries the tenant's app timeout and, for an agentic
 * functionality, the agent settings pinned with the query. Only a plan step's agent gets a line back
 * to the hub: a relayed agent cannot relay on, so a relay's answer is the target's alone.
 */
export function spokeCallOf(
  scope: AppCallScope,
  call: AppCall,
  ids: { callId: string; idempotencyKey: string },
): SpokeCall {
  const { target, origin } = call;
  const { policy, defences } = scope;
  return {
    tenantId: scope.tenantId,
    userId: scope.userId,
    appId: target.appId,
    functionality: target.functionality,
    appVersion: target.version,
    request: call.request,
    callId: ids.callId,
    sessionId: scope.sessionId,
    checkPins: defences.pins,
    idempotencyKey: ids.idempotencyKey,
    remember: scope.remember,
    limits: { timeoutMs: policy.limits.appTimeoutMs },
    memory: call.memory,
    agent: {
      modelTimeoutMs: policy.limits.modelTimeoutMs,
      selfCorrection: policy.selfCorrection,
      checks: defences.visor,
      trustedArgs: call.trusted,
      destinations: call.destinations,
      ...(origin.kind === "step" && {
        collaboration: { sessionId: scope.sessionId, queryId: scope.queryId, stepKey: origin.key },
      }),
    },
  };
}

/**
 * The agent's events the trace shows: which rule stopped which tool (the spoke names only the app's
 * own tools). The call's arguments and the rule's wording stay in the spoke, since a trace reaches
 * the frontend whatever the display policy; the boundary's control run shows the event whole.
 */
export function traceEvents(
  scope: Pick<AppCallScope, "defences">,
  call: AppCall,
  events: readonly AgentEvent[],
): Array<{ type: "visor_exception"; data: HubEventData<"visor_exception"> }> {
  return events
    .filter((event) => event.type === "visor_exception")
    .map((event) => ({
      type: "visor_exception" as const,
      data: {
        key: traceKey(call),
        tool: event.tool,
        exception: { type: event.exception?.type },
        ...(!scope.defences.boundary && { args: event.args, rationale: event.exception }),
      },
    }));
}

/** A plan step's failed call, as the query fails: Lattice's wording, the step and the name it called. */
export function stepFailure(call: AppCall, failure: AppCallFailure): StepFailure {
  const { tool, app } = call.target;
  const facts = { step: traceKey(call), tool };
  if (failure.at === "request")
    return new StepFailure("invalid_request", `${tool}: the request breaks the catalog entry's schema`, {
      details: failure.problems,
      facts,
    });
  if (failure.at === "response")
    return new StepFailure("invalid_response", `${tool}: ${app}'s answer breaks the catalog entry's schema`, {
      details: failure.problems,
      facts,
    });
  return new StepFailure(failure.code, `${tool}: ${failure.message}`, {
    details: failure.problems,
    facts: { ...facts, ...(failure.rule && { rule: failure.rule }) },
  });
}

/**
 * The confidentiality a relayed answer carries to the asking agent: the target's declared output
 * level, joined, as a plan step's answer is, with whatever its own agent read.
 */
export function relayedLevel(lattices: Lattices, target: Target, answer: AppAnswer): string {
  const conf = lattices.confidentiality;
  return highest(
    conf,
    [target.entry.output.confidentiality, ...answer.relayed, ...answer.remembered],
    conf.top,
  );
}
