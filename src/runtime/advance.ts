import { indexQuery, type Label, type QllmStep } from "../policy/index.ts";
import { type AppCall, stepCall } from "./app-call.ts";
import type { ConsentAsk } from "./consents.ts";
import { type QueryError, queryError, StepFailure } from "./failure.ts";
import { Gate, type GatePorts } from "./gate.ts";
import { type Annotated, type Recorder, runPlan } from "./interpreter.ts";
import type { LoadedQuery } from "./query.ts";
import type { JournalEntry, Provenance } from "./records.ts";
import { type SavedValue, savedValue, sourceApps } from "./values.ts";

/** How many new tool or q-llm calls one advance performs: each one is a durable step boundary. */
export const STEPS_PER_ADVANCE = 1;

/** A plan step's answer; a failed call throws a `StepFailure` (`stepFailure`, app-call.ts). */
export interface ToolAnswer {
  value: unknown;
  /** An agentic app read content on the way, so its answer is no more than untrusted. */
  readUntrusted?: boolean;
  /** Confidentiality levels of other apps' answers the agent read (collaboration). */
  relayed?: string[];
  /** Confidentiality levels of the remembered interactions the agent was given. */
  remembered?: string[];
}

/** The effects a query needs, supplied by the hub. A failed effect throws a `StepFailure`. */
export interface QueryPorts extends GatePorts {
  record: Recorder;
  /** The app-call port: the catalog schemas, the limits and the spoke call (app-call.ts). */
  tool(call: AppCall): Promise<ToolAnswer>;
  /** `key`: the step's, so the hub hangs the model call under the step's span (docs/traces.md). */
  qllm(step: QllmStep, inputs: Record<string, unknown>, key: string): Promise<unknown>;
  retrieve(artifactId: string): Promise<SavedValue | null>;
}

/** A result to keep in the user's artifacts; the hub gives it its id and stores it. */
export interface ArtifactDraft {
  name: string;
  schema?: unknown;
  intent: string;
  semantics: string;
  label: Label;
  value: unknown;
  /** Who made the value: kept so a retrieved value is still the app's or model's (see `savedValue`). */
  provenance: Provenance[];
  /** Whose data it carries: kept so a retrieved value still names them (see `savedValue`). */
  apps: string[];
}

/** What the hub does next: advance again, wait for the user (recording `ask`), or end the query. */
export type Advance =
  | { next: "continue" }
  | { next: "wait"; ask: ConsentAsk | null }
  | { next: "done"; artifacts: ArtifactDraft[] }
  /** `artifacts`: a failed query still leaves every declared top-level output (see `leftBy`). */
  | { next: "failed"; error: QueryError; artifacts: ArtifactDraft[] };

/**
 * Advances a planned query by at most `budget` (default `STEPS_PER_ADVANCE`) new calls. Pure given its ports: the
 * journal says what already happened, so the same inputs always lead to the same next effect.
 */
export async function advanceQuery(input: {
  queryId: string;
  query: LoadedQuery;
  journal: ReadonlyMap<string, JournalEntry>;
  ports: QueryPorts;
  budget?: number;
  /** Calls continue back to back until this time (epoch ms), past `budget` (see RunContext). */
  deadline?: number;
}): Promise<Advance> {
  const { query, ports } = input;
  const { policy, snapshot, defences } = query.context;
  const gate = new Gate({
    queryId: input.queryId,
    picks: query.picks,
    policy,
    lattices: query.lattices,
    queryText: query.text,
    snapshot,
    violations: query.verdict.violations,
    defences,
    ports,
  });
  try {
    if (gate.endorseFirst() === "pause") return { next: "wait", ask: gate.asked };
    const outcome = await runPlan({
      plan: query.plan,
      policy,
      lattices: query.lattices,
      targets: snapshot.targets,
      query: indexQuery(query.text, snapshot.mode === "catalog"),
      journal: input.journal,
      budget: input.budget ?? STEPS_PER_ADVANCE,
      ...(input.deadline !== undefined && { deadline: input.deadline }),
      isolation: defences.isolation,
      ifc: defences.ifc,
      namedArtifacts: defences.namedArtifacts,
      record: ports.record,
      effects: {
        route: (step, key) => gate.route(step, key),
        gate: (target, key, args, pc, bound) => gate.check(target, key, args, pc, bound),
        tool: (target, key, args, labels) => ports.tool(stepCall(snapshot, target, key, args, labels)),
        qllm: (step, key, inputs) => ports.qllm(step, inputs, key),
        retrieve: async (artifactId) => {
          if (!snapshot.artifacts[artifactId]) {
            throw new StepFailure("unknown_artifact", `${artifactId} was not shown to the planner`);
          }
          const artifact = await ports.retrieve(artifactId);
          if (!artifact) throw new StepFailure("artifact_gone", `${artifactId} no longer exists`);
          return savedValue(artifact);
        },
      },
    });
    if (outcome.state === "yield") return { next: "continue" };
    if (outcome.state === "pause") return { next: "wait", ask: gate.asked };
    if (outcome.state === "failed") {
      return {
        next: "failed",
        error: queryError(outcome.failure),
        artifacts: leftBy(query, outcome.results),
      };
    }
    return { next: "done", artifacts: outcome.results.flatMap(draft) };
  } catch (error) {
    if (error instanceof StepFailure)
      return { next: "failed", error: queryError(error), artifacts: leftBy(query, []) };
    throw error;
  }
}

/**
 * What a failed query leaves: the top-level outputs it produced, and for each one it did not a
 * placeholder (no value, the top label, so nothing can use it). So a hostile app that fails on
 * purpose inside a branch cannot signal which branch ran through which artifacts exist.
 */
function leftBy(query: LoadedQuery, produced: Annotated[]): ArtifactDraft[] {
  const made = new Map(produced.flatMap(draft).map((d) => [d.name, d]));
  const l = query.lattices;
  const top = { confidentiality: l.confidentiality.top, integrity: l.integrity.bottom };
  return query.plan.steps.flatMap((step) => {
    const name = "out" in step && step.out ? step.out : null;
    if (!name || step.kind === "display" || step.kind === "condition" || step.kind === "retrieve") return [];
    return [
      made.get(name) ??
        draft({ name, step, result: { value: null, label: top, origins: [], provenance: [] } }).map((d) => ({
          ...d,
          value: null,
        }))[0]!,
    ];
  });
}

/**
 * Named tool, q-llm, loop and select results outside any loop body become artifacts; a retrieved value is
 * one already, and displays and conditions bind nothing.
 */
function draft({ name, step, result }: Annotated): ArtifactDraft[] {
  if (step.kind === "display" || step.kind === "condition" || step.kind === "retrieve") return [];
  return [
    {
      name,
      ...(step.kind === "qllm" && { schema: step.schema }),
      // A loop and a select carry no planner words of their own: say which step made the value.
      intent:
        "intent" in step
          ? step.intent
          : `${step.kind === "select" ? "selected" : "collected"} by ${step.kind} ${name}`,
      semantics:
        "semantics" in step
          ? step.semantics
          : `${step.kind === "select" ? "the pick" : "results"} of ${step.kind} ${name}`,
      label: result.label,
      value: result.value,
      provenance: [...result.provenance],
      apps: sourceApps(result.origins),
    },
  ];
}
