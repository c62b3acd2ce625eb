/** A world for the runtime's Node tests: the DSL.md mail apps, fake effects that log every call. */
import { indexQuery, type Label, type Policy, policyLattices, validatePlan } from "../../src/policy/index.ts";
import type { JournalEntry, Target } from "../../src/runtime/index.ts";
import { type Effects, type Recorder, runPlan } from "../../src/runtime/interpreter.ts";
import type { Json } from "../policy/builders.ts";
import { EXAMPLE_QUERY, entry, MAIL_CATALOG, policy, tinyChecker } from "../policy/fixtures.ts";

export const CATALOG = {
  ...MAIL_CATALOG,
  "notes.list": entry({ output: { confidentiality: "internal", integrity: "untrusted" } }),
  "web.post": entry({ clearance: "public", output: { confidentiality: "public", integrity: "untrusted" } }),
};

/** Apps mode: each name is served by its own app alone. */
export const TARGETS: Record<string, Target[]> = Object.fromEntries(
  Object.entries(CATALOG).map(([tool, e]) => {
    const [app = "", functionality = ""] = tool.split(".");
    return [
      tool,
      [{ tool, app, appId: `app_${app}`, functionality, version: 1, entry: e, description: tool }],
    ];
  }),
);

export function validPlan(plan: Json, p: Policy = policy(), query = EXAMPLE_QUERY) {
  const v = validatePlan(plan, {
    policy: p,
    query,
    catalog: CATALOG,
    artifacts: {},
    checkSchema: tinyChecker,
  });
  if (!v.ok) throw new Error(`test plan invalid: ${JSON.stringify(v.details)}`);
  return v.plan;
}

/** A journal that really persists across runs, as the hub's SQLite does. */
export class MemoryJournal implements Recorder {
  readonly entries = new Map<string, JournalEntry>();
  readonly shown: Array<{ key: string; value: unknown; redacted: boolean; label: Label }> = [];
  readonly events: string[] = [];
  started(key: string, kind: string, info: Record<string, unknown>): void {
    this.entries.set(key, { key, kind, state: "started", value: null, label: null, info });
  }
  done(key: string, kind: string, value: unknown, label: Label, info: Record<string, unknown>): void {
    this.entries.set(key, { key, kind, state: "done", value, label, info });
  }
  display(item: { key: string; value: unknown; redacted: boolean; label: Label }): void {
    this.shown.push(item);
  }
  event(type: string): void {
    this.events.push(type);
  }
}

/** Tool answers by tool name (a function of the arguments), every call logged. */
export function fakeEffects(
  answers: Record<string, (args: Record<string, unknown>) => unknown>,
  over: Partial<Effects> = {},
): Effects & {
  calls: Array<{ tool: string; key: string; args: Record<string, unknown> }>;
  qllmInputs: unknown[];
} {
  const calls: Array<{ tool: string; key: string; args: Record<string, unknown> }> = [];
  const qllmInputs: unknown[] = [];
  return {
    calls,
    qllmInputs,
    route: async (step) => TARGETS[step.tool]?.[0] ?? null,
    gate: async () => "go",
    tool: async (target, key, args) => {
      calls.push({ tool: target.tool, key, args });
      const answer = answers[target.tool];
      if (!answer) throw new Error(`no fake answer for ${target.tool}`);
      return { value: answer(args) };
    },
    qllm: async (_step, _key, inputs) => {
      qllmInputs.push(inputs);
      return { total: 42 };
    },
    retrieve: async () => {
      throw new Error("no artifacts in this world");
    },
    ...over,
  };
}

/** Runs a plan to its end, one advance at a time, as the hub's alarms would. */
export async function runToEnd(
  plan: Json,
  effects: Effects,
  options: {
    policy?: Policy;
    journal?: MemoryJournal;
    isolation?: boolean;
    query?: string;
    /** As the hub's back-to-back runs pass them (default: one call per advance, as manual stepping). */
    budget?: number;
    deadline?: () => number;
  } = {},
) {
  const p = options.policy ?? policy();
  const journal = options.journal ?? new MemoryJournal();
  const valid = validPlan(plan, p, options.query);
  for (let advance = 0; advance < 100; advance++) {
    const outcome = await runPlan({
      plan: valid,
      policy: p,
      lattices: policyLattices(p),
      targets: TARGETS,
      query: indexQuery(options.query ?? EXAMPLE_QUERY),
      journal: journal.entries,
      budget: options.budget ?? 1,
      ...(options.deadline && { deadline: options.deadline() }),
      isolation: options.isolation ?? true,
      effects,
      record: journal,
    });
    // A failure ends the run as the hub sees it: the failure, thrown for the test to inspect.
    if (outcome.state === "failed") throw outcome.failure;
    if (outcome.state !== "yield") return { outcome, journal, advances: advance + 1 };
  }
  throw new Error("the plan did not finish in 100 advances");
}
