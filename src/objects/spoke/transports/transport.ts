import type { Functionality, Manifest } from "../../../apps/manifest.ts";
import type { AuditType } from "../../../audit-types.ts";
import type { AgentEvent, ServingApp, SpokeCall, SpokeErrorCode } from "../../../contracts.ts";
import type { ModelConfig, ModelLimits } from "../../../llm/index.ts";
import type { VisorCheck } from "../../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../../result.ts";
import type { CallObserver } from "../endpoint.ts";
import type { PinCheck, TenantPort } from "../mcp.ts";
import type { readMemory } from "../memory.ts";
import type { PersonalToken } from "../personal-token.ts";
import type { UserOAuth } from "../user-oauth.ts";

/**
 * How a spoke reaches its app: a signed HTTP call, an MCP server's tool, or the app's own agent
 * loop. The pipeline (pipeline.ts) chooses one per call from the manifest and runs the same stages
 * around it; a transport only delivers the request and says what came of it, in one Result shape.
 */

export type TransportKind = "http" | "mcp" | "agent";

/** An MCP import's tool, a functionality the manifest's agent serves, or the app's endpoint. */
export function transportKind(manifest: Manifest, fn: Functionality): TransportKind {
  if (fn.tool) return "mcp";
  return manifest.agent && Object.hasOwn(manifest.agent.functionalities, fn.name) ? "agent" : "http";
}

export interface AppTransport {
  /** The URL the call leaves for, checked against egress first; undefined: the app names none. */
  readonly target: string | undefined;
  /**
   * The pipeline checks the answer against the declared response schema. An MCP tool's answer is
   * checked against its pinned schema (mcp/results.ts), an agent's by its loop (agent-turn.ts).
   */
  readonly checksResponse: boolean;
  call(): Promise<Delivery>;
}

export type TransportFactory = (
  spoke: SpokeContext,
  call: SpokeCall,
  app: ServingApp,
  fn: Functionality,
) => AppTransport;

/** What of its SpokeDO a transport uses: the tenant, the model, memory, tokens and pins. */
export interface SpokeContext {
  readonly env: Env;
  readonly tenant: TenantPort;
  /** Writes a row to the tenant's audit log, batched (audit-sink.ts): it never blocks or fails. */
  audit(type: AuditType, detail: Record<string, unknown>): void;
  /** The tenant's model for an app's agent; throws ModelError. */
  model(timeoutMs: number): Promise<{ model: ModelConfig; limits: ModelLimits }>;
  memory(limit: number, mayRead: readonly string[] | null): ReturnType<typeof readMemory>;
  oauth(): UserOAuth;
  personalToken(): PersonalToken;
  /** When this spoke last found the MCP server's tools matching the pins (in memory: an eviction rechecks). */
  pins: { last(): PinCheck | null; checked(check: PinCheck | null): void };
  /** A developer's try-it call: told the request as it leaves and the answer as it comes (try.ts). */
  observe?: CallObserver;
}

/** An agent's run: its events (the visor's exceptions are audited), the levels its memory holds besides the call's. */
export interface AgentReport {
  events: AgentEvent[];
  held: string[];
}

/** What labels an agent's answer at the hub. */
export interface AgentLabels {
  readUntrusted: boolean;
  /** Confidentiality levels of other apps' answers it read (collaboration). */
  relayed: string[];
  /** Confidentiality levels of the remembered interactions it was given. */
  remembered: string[];
}

export interface DeliveryDetails {
  /** Places in a declared schema: the app's own keys and values stay out. */
  problems?: string[];
  /** The HTTP status of an app's answer other than 200. */
  status?: number;
  /** `rule`: the visor rule that refused the agent's call. */
  agent?: AgentReport & { rule?: VisorCheck };
  /** Refused before anything was sent (no model for the agent): nothing to remember or audit. */
  unsent?: true;
}

export type Undelivered = Failure<SpokeErrorCode> & { readonly details?: DeliveryDetails };
export type Delivery = Ok<{ value: unknown; agent?: AgentReport & AgentLabels }> | Undelivered;

export function undelivered(code: SpokeErrorCode, message: string, details?: DeliveryDetails): Undelivered {
  const { details: _none, ...failed } = failure(code, message);
  return details === undefined ? failed : { ...failed, details };
}
