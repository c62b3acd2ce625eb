import * as z from "zod";
import type { Label, VisorCheck } from "../policy/index.ts";

/** The records a query leaves as it runs: its status, journal, display items and events. */

export const QUERY_STATES = [
  "planning",
  "awaiting_consent",
  "running",
  "completed",
  "failed",
  "rejected",
] as const;
export type QueryStatus = (typeof QUERY_STATES)[number];

export const LabelSchema = z.object({ confidentiality: z.string(), integrity: z.string() });

/** One effect of a query, keyed by its position in the plan: what a replay takes instead of calling again. */
export interface JournalEntry {
  key: string;
  kind: string;
  state: "started" | "done";
  value: unknown;
  label: Label | null;
  info: Record<string, unknown> | null;
}

/**
 * Where a value came from, for the user to see: the query (`user`), a literal the planner chose
 * (`planner`), an app's answer (`app`), a model's reading of its inputs (`model`), saved data
 * (`artifacts`).
 */
export const PROVENANCES = ["user", "planner", "app", "model", "artifacts"] as const;
export type Provenance = (typeof PROVENANCES)[number];
export const ProvenanceSchema = z.object({ from: z.array(z.enum(PROVENANCES)), apps: z.array(z.string()) });

export interface DisplayItem {
  key: string;
  title: string | null;
  value: unknown;
  label: Label;
  redacted: boolean;
  untrusted: boolean;
  /** Where the value came from: see `Provenance`; `apps` names the apps whose answers it carries. */
  provenance: { from: Provenance[]; apps: string[] };
}

/** Which defences run. Always all from HTTP; tests switch one off over RPC to show the attack it stops. */
export interface Defences {
  ifc: boolean;
  consent: boolean;
  isolation: boolean;
  visor: Record<VisorCheck, boolean>;
  /** MCP apps' tool lists are compared with their approved pins before calls. */
  pins: boolean;
  /** Failures and agent events leave as codes, Lattice's words and checked names (shown-error.ts). */
  boundary: boolean;
  /** A retrieved artifact's data is named by its id, so a standing data_share grant covers that artifact only. */
  namedArtifacts: boolean;
  /** A user's standing rule answers only for the calls its conditions admit (else: any rule, any call it is asked about). */
  ruleScope: boolean;
  /** Under `onViolation: "ask"`, an unconditional step's static endorsement is asked before any step runs. */
  endorseFirst: boolean;
}

/** Per-query controls, reachable over RPC only (the HTTP API never sets them): for tests and benches. */
export const QueryOptionsSchema = z
  .object({
    /** "off" runs the query with the information-flow defence disabled: the control for security tests. */
    ifc: z.enum(["on", "off"]).optional(),
    /** "off" runs it without consents (every call allowed): the control for consent tests. */
    consent: z.enum(["on", "off"]).optional(),
    /** "off" gives q-llm steps every value and every app's instructions: the control for isolation tests. */
    isolation: z.enum(["on", "off"]).optional(),
    /** Switches one of the visor's checks off: the control for the visor's ablation tests. */
    visorOff: z.enum(["S", "T", "I"]).optional(),
    /** "off" calls MCP tools without comparing the server's list with the pins: the rug-pull control. */
    pins: z.enum(["on", "off"]).optional(),
    /** "off" shows failures and the visor's events as the runtime holds them: the display-boundary control. */
    boundary: z.enum(["on", "off"]).optional(),
    /** "broad": every artifact counts as one origin, so a grant over one covers all (the grant control). */
    artifactGrants: z.enum(["named", "broad"]).optional(),
    /** "off": any standing rule of the user answers every consent a rule may answer: the control for rule tests. */
    ruleScope: z.enum(["on", "off"]).optional(),
    /** "off": a static endorsement is asked only at its step, after the steps before it ran (its control). */
    endorseFirst: z.enum(["on", "off"]).optional(),
    /** "manual": no alarms; each `advance` RPC performs one step (tests evict between steps). */
    stepping: z.enum(["auto", "manual"]).optional(),
  })
  .strict();
export type QueryOptions = z.infer<typeof QueryOptionsSchema>;

export function defencesOf(options: QueryOptions): Defences {
  return {
    ifc: options.ifc !== "off",
    consent: options.consent !== "off",
    isolation: options.isolation !== "off",
    visor: { S: options.visorOff !== "S", T: options.visorOff !== "T", I: options.visorOff !== "I" },
    pins: options.pins !== "off",
    boundary: options.boundary !== "off",
    namedArtifacts: options.artifactGrants !== "broad",
    ruleScope: options.ruleScope !== "off",
    endorseFirst: options.endorseFirst !== "off",
  };
}
