/**
 * What the interpreter (interpreter.ts) is given and gives back: the effects it asks of the hub,
 * the recorder it journals through, the run's context and its outcome. Kept apart so the
 * interpreter file holds only the run itself.
 */
import type {
  Label,
  Lattices,
  Policy,
  PoolSource,
  QllmStep,
  QueryIndex,
  Step,
  ToolStep,
  ValidPlan,
} from "../policy/index.ts";
import type { HubEventData, HubEventType } from "./events.ts";
import type { StepFailure } from "./failure.ts";
import type { DisplayItem, JournalEntry } from "./records.ts";
import type { Target } from "./snapshot.ts";
import type { Labeled } from "./values.ts";

export interface Effects {
  /** Which app serves this step: its only target, or the user's pick among several (null: ask first). */
  route(step: ToolStep, key: string): Promise<Target | null>;
  /**
   * Whether the call may go now: runtime labels are checked and consents asked here. `pc` carries
   * the guards' origins: a call inside a condition on another app's data shares that data.
   * `bound`: the values bound so far, read only if a deferred finding needs the trusted values.
   */
  gate(
    target: Target,
    key: string,
    args: Record<string, Labeled>,
    pc: Pc,
    bound: () => Iterable<PoolSource>,
  ): Promise<"go" | "pause">;
  /**
   * `readUntrusted`: an agentic app read content on the way, so its answer is no more than untrusted;
   * `relayed` and `remembered`: the confidentiality of other apps' answers and of the memory it read.
   */
  tool(
    target: Target,
    key: string,
    args: Record<string, unknown>,
    call: CallLabels,
  ): Promise<{ value: unknown; readUntrusted?: boolean; relayed?: string[]; remembered?: string[] }>;
  qllm(step: QllmStep, key: string, inputs: Record<string, unknown>): Promise<unknown>;
  retrieve(artifactId: string): Promise<Labeled>;
}

/** What the hub tells an app's spoke about a call's labels. */
export interface CallLabels {
  /** Which arguments carry the user's own words (an agentic app's visor takes destinations only from them). */
  trusted: string[];
  /** The confidentiality the call's answer carries before the app runs: its memory of this call keeps it. */
  carries: string;
  /** The levels a remembered interaction may hold to be given to an agent; null: unfiltered (control). */
  mayRead: string[] | null;
}

/** The program counter: the label of the guards around a step, and the apps their data came from. */
export interface Pc {
  label: Label;
  origins: readonly string[];
}

export interface Recorder {
  started(key: string, kind: string, info: Record<string, unknown>): void;
  done(key: string, kind: string, value: unknown, label: Label, info: Record<string, unknown>): void;
  display(item: DisplayItem): void;
  event<T extends HubEventType>(type: T, data: HubEventData<T>): void;
}

export interface RunContext {
  plan: ValidPlan;
  policy: Policy;
  lattices: Lattices;
  /** Who may serve each name the plan calls (a replay finds the journaled one here). */
  targets: Readonly<Record<string, readonly Target[]>>;
  query: QueryIndex;
  journal: ReadonlyMap<string, JournalEntry>;
  budget: number;
  /**
   * When set (epoch ms), the run also yields before a new call once this time has passed, after at
   * least one call: a run of back-to-back steps stays bounded without replaying between steps.
   */
  deadline?: number;
  /** False only in control runs: a q-llm step then sees every value so far, like a monolithic agent. */
  isolation: boolean;
  /** False only in control runs: an agent is then given all its memory, and its labels are ignored. */
  ifc?: boolean;
  /** False only in control runs: every artifact is then the one origin "artifacts" (see Defences). */
  namedArtifacts?: boolean;
  effects: Effects;
  record: Recorder;
}

/**
 * A result worth keeping as an artifact: a named tool, q-llm or loop result of a top-level step.
 * Outputs inside a condition or a loop body are never kept, so which artifacts a query leaves is a
 * function of its plan alone, not of the data a guard read (a later planner reads their metadata).
 */
export interface Annotated {
  name: string;
  step: Step;
  result: Labeled;
}

export type RunOutcome =
  | { state: "done"; results: Annotated[] }
  | { state: "yield" }
  | { state: "pause" }
  /** The query ends; `results` are the top-level outputs produced before the failure. */
  | { state: "failed"; failure: StepFailure; results: Annotated[] };
