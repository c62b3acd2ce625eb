/**
 * The query runtime: the interpreter, value resolution, the per-call gate, consent answering rules,
 * the planning snapshot and messages, and the stored-query codec. Pure like src/policy: no Workers
 * runtime, no Durable Object stubs, no model client; the hub supplies every effect through ports.
 */

export type { Advance, ArtifactDraft, QueryPorts, ToolAnswer } from "./advance.ts";
export { advanceQuery, STEPS_PER_ADVANCE } from "./advance.ts";
export type {
  AgentAction,
  AgentObservation,
  AgentOutcome,
  AgentSetup,
  AgentState,
  AgentStep,
  ModelAnswer,
  TaintLedger,
} from "./agent-state.ts";
export { agentObserve, agentStart, agentTurn } from "./agent-turn.ts";
export { answerLabel } from "./app-answer.ts";
export {
  type AppAnswer,
  type AppCall,
  type AppCallFailure,
  type AppCallOutcome,
  callApp,
  relayCall,
  relayedLevel,
  stepFailure,
} from "./app-call.ts";
export {
  assessCollaboration,
  type CollaborationAssessment,
  type RelayInput,
  relayNext,
  shownRequest,
} from "./collaboration.ts";
export { collaborationView, relayView } from "./consent-asks.ts";
export {
  CONSENT_PATH_STATES,
  type ConsentEvent,
  type ConsentFacts,
  type ConsentOrigin,
  type ConsentPathStatus,
  type ConsentRefusal,
  type ConsentStep,
  type ConsentWrite,
  consentNext,
  consentRecords,
  isRelayConsent,
} from "./consent-path.ts";
export type {
  ConsentView,
  SourceKind,
  ViewField,
  ViewKind,
  ViewSource,
  ViewWarning,
  WarningCode,
} from "./consent-view.ts";
export { ConsentViewSchema, SOURCE_KINDS, VIEW_KINDS, WARNING_CODES } from "./consent-view.ts";
export type {
  AnswerCheck,
  Consent,
  ConsentAnswer,
  ConsentAsk,
  ConsentRequest,
  ConsentStatus,
  Settlement,
} from "./consents.ts";
export { answerRules, ConsentRequestSchema, expiryStopsQuery, shownConsent } from "./consents.ts";
export {
  EVENT_DATA,
  HUB_EVENT_TYPES,
  type HubEvent,
  type HubEventData,
  type HubEventType,
  HubEventTypeSchema,
  type NewEvent,
} from "./events.ts";
export type { FailureFacts, QueryError, RuntimeErrorCode } from "./failure.ts";
export { queryError, StepFailure } from "./failure.ts";
export type { GatePorts } from "./gate.ts";
export type { Recorder } from "./interpreter.ts";
export { type AppPicks, AppPicksSchema, MAX_PICKS, pickedFor, picksProblems, samePicks } from "./picks.ts";
export type { PlannerMessage, PlannerModel } from "./planner.ts";
export { allowedNames, type Planned, type PlanningInput, planQuery } from "./planning.ts";
export { type LoadedQuery, loadQuery, plannedQuery, type QueryContext, storedContext } from "./query.ts";
export {
  type Answerer,
  type AuditRow,
  type MachineQuery,
  next,
  type QueryEffect,
  type QueryEvent,
  type QueryFields,
  type Transition,
  unchanged,
} from "./query-machine.ts";
export type { Defences, DisplayItem, JournalEntry, QueryOptions, QueryStatus } from "./records.ts";
export {
  defencesOf,
  LabelSchema,
  PROVENANCES,
  ProvenanceSchema,
  QUERY_STATES,
  QueryOptionsSchema,
} from "./records.ts";
export { ERROR_WORDS, planCalls, planNames, type ShownError, shownError } from "./shown-error.ts";
export { type PlanningSnapshot, planningOf, type Target, targetId } from "./snapshot.ts";
export type { Labeled, Provenance } from "./values.ts";
