/**
 * The messages Durable Objects exchange over RPC, in one place: what the hub asks of a spoke, of the
 * artifacts store and of the tenant, and what a spoke asks of its hub: types, and the one name both
 * sides must agree on (the vanilla spoke's). Each object implements its side. RPC values are plain
 * JSON data (structured clone carries them unchanged).
 */
import type { ConfirmedDestinations } from "./apps/destination-review.ts";
import type { Manifest } from "./apps/manifest.ts";
import type { Label, SemanticException, VisorCheck } from "./policy/index.ts";
import type { Failure, Ok, Result } from "./result.ts";

// --- tenant → hub, spoke ---

/** An approved, enabled app at its serving version: what planning and spokes may use. */
export interface ServingAppInfo {
  appId: string;
  name: string;
  version: number;
  clearance: string;
  manifest: Manifest;
  /** Functionality name → the catalog entry it serves, as approved. */
  bindings: Record<string, string>;
  /** The destination lists the admin confirmed at approval (absent: none; the rule infers). */
  confirmedDestinations?: ConfirmedDestinations;
}

/** What a spoke needs to call the app: the serving version and the signing secrets (the current one first; the previous one too while a rotation overlaps). */
export interface ServingApp extends ServingAppInfo {
  secrets: string[];
  /** An MCP app: the digest of each tool definition approved with this version. */
  pins: Record<string, string> | null;
  /** The server's tools changed since approval: calls are refused until a new version is reviewed. */
  drifted: boolean;
}

// --- hub → spoke ---

/** How the app's own model runs, when the functionality is agentic. The spoke resolves the model itself. */
export interface AgentCallSettings {
  /** The tenant's model timeout, pinned with the query's policy. */
  modelTimeoutMs: number;
  /** Corrections allowed after a semantic exception (tenant `selfCorrection`); then the call is refused. */
  selfCorrection: 0 | 1;
  checks: Record<VisorCheck, boolean>;
  /** The request arguments the hub labeled with user integrity. */
  trustedArgs: string[];
  /** Request paths the tenant's catalog entry declares as destinations (joined with the manifest's). */
  destinations: string[];
  /** Where this call sits in a hub query, so the agent may ask the hub for other apps' help. */
  collaboration?: { sessionId: string; queryId: string; stepKey: string };
}

export interface SpokeCall {
  tenantId: string;
  userId: string;
  appId: string;
  functionality: string;
  /** The approved version the hub verified against; another one (approved since) is refused. */
  appVersion?: number;
  request: unknown;
  /** Ephemeral id of this call, shown to the app (X-Lattice-Call). */
  callId: string;
  /** The hub session asking: an MCP app's pins are checked again in each new session. */
  sessionId?: string;
  /** False only in a control run: MCP tools are called without the pin check. */
  checkPins?: boolean;
  /** Stable across retries of the same step, so the app can deduplicate. */
  idempotencyKey: string;
  /** Private sessions leave no memory behind, and give an agentic app none. */
  remember?: boolean;
  limits?: { timeoutMs?: number; maxResponseBytes?: number };
  agent?: AgentCallSettings;
  /**
   * `carries`: the confidentiality of this call's data, kept with the interaction it leaves;
   * `mayRead`: the levels a remembered interaction may hold to be given to an agent (null: all, the
   * control). Absent: the interaction is kept at the top level and no memory is given.
   */
  memory?: { carries: string; mayRead: string[] | null };
  /** The W3C trace context of the step this call serves (docs/traces.md); absent when tracing is off. */
  traceparent?: string;
}

export const SPOKE_ERROR_CODES = [
  "app_unavailable",
  "app_changed",
  "unknown_functionality",
  "invalid_request",
  "invalid_response",
  "egress_refused",
  "app_timeout",
  "app_error",
  "app_response_too_large",
  "app_response_not_json",
  "agent_not_configured",
  "agent_time_limit",
  "agent_token_limit",
  "agent_turn_limit",
  "agent_too_many_calls",
  "visor_refused",
  "model_timeout",
  "model_failed",
  "model_not_configured",
  "quota_exceeded",
  "tool_drift",
  "tool_error",
  "authorization_required",
] as const;
export type SpokeErrorCode = (typeof SPOKE_ERROR_CODES)[number];

export interface AgentEvent {
  type: "tool_call" | "visor_exception" | "tool_failed" | "collaboration";
  tool: string;
  args?: unknown;
  exception?: SemanticException;
  message?: string;
}

export type SpokeResult =
  | Ok<{
      value: unknown;
      appVersion: number;
      readUntrusted?: boolean;
      /** Confidentiality levels of other apps' answers an agent read (collaboration). */
      relayed?: string[];
      /** Confidentiality levels of the remembered interactions an agent was given. */
      remembered?: string[];
      events?: AgentEvent[];
    }>
  /** `problems`: places in the declared schema; `rule`: the visor rule that refused an agent's call. */
  | (Failure<SpokeErrorCode> & { problems?: string[]; events?: AgentEvent[]; rule?: VisorCheck });

/** The agent tool that asks another app through the hub; a manifest lists it to allow collaboration. */
export const COLLABORATION_TOOL = "lattice_request";

/**
 * A developer's try-it call (objects/spoke/try.ts) as its spoke saw it: the pipeline's own result,
 * the request as it left (secret headers redacted) and the answer as it came, bounded.
 */
export interface SpokeTryReport {
  result: SpokeResult;
  request: { method: string; url: string; headers: Record<string, string>; body: string } | null;
  answer: { status: number; body: string; truncated: boolean } | null;
  durationMs: number;
}

/** The app id of the memoryless spoke that runs q-llm steps, one per (tenant, user). */
export const VANILLA_SPOKE = "_vanilla";

/** A q-llm step for a memoryless vanilla spoke: the planner's prompt and schema, the plan's inputs. */
export interface QllmCall {
  tenantId: string;
  /** The vanilla spoke serves one (tenant, user): it checks both, like an app's spoke. */
  userId: string;
  modelTimeoutMs: number;
  prompt: string;
  inputs: Record<string, unknown>;
  schema: Record<string, unknown>;
  /** The step's trace context (W3C `traceparent`), when tracing is on: the q-llm span's parent. */
  traceparent?: string;
}

/** Why a model call failed (the model layer's `ModelError` carries one of these). */
export type ModelErrorCode = "model_timeout" | "model_failed" | "model_not_configured" | "quota_exceeded";
/** `schema_not_strict`: the step's schema cannot be sent to a model held to strict schemas. */
export type QllmErrorCode = "invalid_model_output" | "schema_not_strict" | ModelErrorCode;
export type QllmResult = Result<{ value: unknown; tokens: number }, QllmErrorCode>;

// --- spoke → hub (collaboration between spokes) ---

export interface Discovery {
  fxId: string;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  /** Whether any app serving it cannot undo it: the visor's S rule then needs an irreversible functionality. */
  irreversible: boolean;
  /**
   * Request paths where data or money go (the catalog entry's, or the serving functionalities'
   * declared, confirmed and inferred ones); absent: nobody declared any.
   */
  destinations?: string[];
  /** The admin confirmed every serving functionality's list: the visor infers nothing more. */
  confirmed: boolean;
}

export interface CollaborationRequest {
  queryId: string;
  stepKey: string;
  fromApp: string;
  fxId: string;
  request: unknown;
  /** What the asking agent read, in words for the user: its developer's instructions, content, memory. */
  read: string[];
  /** The confidentiality levels of everything it read: the request's label joins them. */
  carried: string[];
}

export type CollaborationCode = "denied" | "expired" | "dropped" | "failed";
export type CollaborationReply =
  | Ok<{ state: "pending"; consentId: string }>
  /** `confidentiality`: the answering app's declared output level, joined into the asking step's label. */
  | Ok<{ state: "answered"; value: unknown; confidentiality: string }>
  /** `attempted`: the relay left the hub before it failed, so the target may have acted. */
  | (Failure<CollaborationCode> & { attempted?: true });

// --- hub → artifacts ---

/** What a planner may see of an artifact: everything but its value. */
export interface ArtifactMetadata {
  id: string;
  name: string;
  schema: unknown;
  intent: string;
  semantics: string;
  query: string;
  label: Label;
  sessionId: string;
  queryId: string;
  /** The planning mode of the query that made it: catalog-mode planners read only catalog-made metadata. */
  plannedIn: "catalog" | "apps";
  createdAt: string;
}

/** What the hub stores: the metadata (less the time it is stored at) and the sealed value. */
export type NewArtifact = Omit<ArtifactMetadata, "createdAt" | "schema"> & {
  /** Derived from the query and name by the hub, so a replayed completion stores nothing twice. */
  id: string;
  schema?: unknown;
  value: unknown;
  /** Who made the value (runtime Provenance): read back at retrieve, never shown as metadata. */
  provenance?: readonly string[];
  /** The apps whose data the value carries: read back at retrieve as its origins beside `artifact:<id>`. */
  apps?: readonly string[];
};

/** A standing (permanent) permission the user gave: listed and revocable by the user. */
export interface Grant {
  id: string;
  kind: string;
  subject: string;
  choice: string | null;
  description: string;
  createdAt: string;
}
