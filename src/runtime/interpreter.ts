import {
  type ConditionStep,
  displayLabel,
  displayRequirement,
  flowAllowed,
  guardedPc,
  initialPc,
  joinAll,
  type Label,
  type LoopStep,
  loopOutLabel,
  loopVarLabel,
  outputBaseline,
  type PoolSource,
  type QllmStep,
  qllmInstructionLabel,
  qllmOutputLabel,
  type SelectStep,
  type Step,
  selectOutputLabel,
  selectPathsLabel,
  type ToolStep,
  toolOutputLabel,
} from "../policy/index.ts";
import { AGENT_READ, answerLabel, answerPoolSource, replayedAgentRead } from "./app-answer.ts";
import { StepFailure } from "./failure.ts";
import type { JournalEntry } from "./records.ts";
import type { Annotated, Pc, RunContext, RunOutcome } from "./run-context.ts";
import { selectValue } from "./select.ts";
import type { Target } from "./snapshot.ts";
import {
  ARTIFACT_ORIGIN,
  evaluate,
  guardOf,
  holds,
  type Labeled,
  mergeOrigins,
  mergeProvenance,
  savedValue,
  sourceApps,
  type Vars,
} from "./values.ts";

export type { Annotated, CallLabels, Effects, Pc, Recorder, RunContext, RunOutcome } from "./run-context.ts";

/**
 * The deterministic interpreter. It cannot reorder or change steps; it replays the plan from the
 * start on every advance, taking each effect's result from the journal where one is recorded, and
 * performs at most `budget` new tool or q-llm calls (or calls until `deadline`) before yielding. Each
 * effect is journaled before the next call is made, so every step boundary is a durable point:
 * evict the object there and the next advance picks up exactly where this one left.
 */

class Yield {}
class Pause {}

export async function runPlan(ctx: RunContext): Promise<RunOutcome> {
  const run = new Run(ctx);
  try {
    await run.steps(ctx.plan.steps, "steps", { label: initialPc(ctx.lattices), origins: [] }, true);
    return { state: "done", results: run.results };
  } catch (signal) {
    if (signal instanceof Yield) return { state: "yield" };
    if (signal instanceof Pause) return { state: "pause" };
    if (signal instanceof StepFailure) return { state: "failed", failure: signal, results: run.results };
    throw signal;
  }
}

class Run {
  readonly vars: Vars = new Map();
  readonly results: Annotated[] = [];
  /** Leaves of tool answers the policy trusts as values (`trustedValues`): candidates a match may take. */
  private readonly trustedValues: PoolSource[] = [];
  private spent = 0;
  private visited = 0;
  /** Tool and q-llm calls made by earlier advances: what `maxCalls` bounds (retrieves and displays are free). */
  private readonly made: number;
  private readonly ctx: RunContext;

  constructor(ctx: RunContext) {
    this.ctx = ctx;
    this.made = [...ctx.journal.values()].filter((e) => e.kind === "tool" || e.kind === "qllm").length;
  }

  private get evalCtx() {
    return { lattices: this.ctx.lattices, query: this.ctx.query, vars: this.vars };
  }

  async steps(steps: readonly Step[], path: string, pc: Pc, annotate: boolean): Promise<void> {
    for (const [i, step] of steps.entries()) {
      this.visit();
      await this.step(step, `${path}[${i}]`, pc, annotate);
    }
  }

  private async step(step: Step, key: string, pc: Pc, annotate: boolean): Promise<void> {
    switch (step.kind) {
      case "retrieve": {
        const done = this.ctx.journal.get(key);
        const found = done?.state === "done" ? fromJournal(done) : await this.retrieve(step.artifact, key);
        // Named by its id: a consent's `from`, and the standing grant its answer leaves, cover this
        // artifact only; the apps whose data it carries stay beside it (savedValue).
        const origin = this.ctx.namedArtifacts === false ? "artifacts" : artifactOrigin(step.artifact);
        const result = { ...found, origins: [origin, ...sourceApps(found.origins)] };
        // The stored label, as the verifier assumed: pc joins in where the value reaches a sink.
        return this.bind(step.out, step, result, annotate);
      }
      case "tool":
        return this.tool(step, key, pc, annotate);
      case "qllm":
        return this.qllm(step, key, pc, annotate);
      case "display":
        return this.display(step, key, pc);
      case "condition":
        return this.condition(step, key, pc, annotate);
      case "loop":
        return this.loop(step, key, pc, annotate);
      case "select":
        return this.select(step, key, pc, annotate);
    }
  }

  private async retrieve(artifactId: string, key: string): Promise<Labeled> {
    const result = await this.ctx.effects.retrieve(artifactId);
    this.ctx.record.done(key, "retrieve", result.value, result.label, {
      artifact: artifactId,
      provenance: [...result.provenance],
      apps: sourceApps(result.origins),
    });
    return result;
  }

  private async tool(step: ToolStep, key: string, pc: Pc, annotate: boolean): Promise<void> {
    if (step.providers === "all")
      return this.bind(step.out, step, await this.fanOut(step, key, pc), annotate);
    const journaled = this.ctx.journal.get(key);
    const target = journaled
      ? this.journaledTarget(step, journaled)
      : await this.ctx.effects.route(step, key);
    if (target === null) throw new Pause();
    const args: Record<string, Labeled> = {};
    for (const [name, expr] of Object.entries(step.args)) args[name] = evaluate(this.evalCtx, expr);
    this.bind(step.out, step, await this.call(target, key, args, pc), annotate);
  }

  /**
   * `providers: "all"`: the call on every app serving the entry, in app-name order, each under its
   * own journal key (`providerKey`) and through the gate exactly as a single call, with no app to
   * choose. The result maps each app to its answer; its label joins theirs (what the verifier
   * computed from the strictest target), its origins every app called. One app failing fails the
   * step: a comparison that silently lost a provider is not the one the user asked for.
   */
  private async fanOut(step: ToolStep, key: string, pc: Pc): Promise<Labeled> {
    const targets = providersOf(this.ctx.targets[step.tool] ?? []);
    if (!targets.length) throw new StepFailure("unknown_tool", `${step.tool} is served by no app`);
    const args: Record<string, Labeled> = {};
    for (const [name, expr] of Object.entries(step.args)) args[name] = evaluate(this.evalCtx, expr);
    const answers: Labeled[] = [];
    for (const target of targets)
      answers.push(await this.call(target, providerKey(key, target.app), args, pc, true));
    return {
      value: Object.fromEntries(targets.map((t, i) => [t.app, answers[i]!.value])),
      label: joinAll(
        this.ctx.lattices,
        answers.map((a) => a.label),
      ),
      origins: mergeOrigins(answers),
      provenance: ["app"],
    };
  }

  /** One call of `target` at `key`: from the journal when recorded, else gated, journaled and made. */
  private async call(
    target: Target,
    key: string,
    args: Record<string, Labeled>,
    pc: Pc,
    comparison = false,
  ): Promise<Labeled> {
    const journaled = this.ctx.journal.get(key);
    const l = this.ctx.lattices;
    const label = toolOutputLabel(
      l,
      outputBaseline(this.ctx.policy, l, target.tool, target.entry),
      Object.values(args).map((a) => a.label),
      pc.label,
    );
    // An app's answer carries that app's origin and whatever its inputs came from: data that
    // crossed from A through B to C still needs A's consent to reach C.
    const origins = mergeOrigins(Object.values(args), [target.app]);
    const tools = this.ctx.policy.tools;
    const answer = (value: unknown, final: Label, agentRead: boolean): Labeled => {
      // Kept for the whole query, loops and projections notwithstanding (app-answer.ts says which).
      const source = answerPoolSource({
        l,
        key,
        tool: target.tool,
        toolPolicy: Object.hasOwn(tools, target.tool) ? tools[target.tool] : undefined,
        comparison,
        value,
        final,
        agentRead,
        args,
        pc,
      });
      if (source) this.trustedValues.push(source);
      return { value, label: final, origins, provenance: ["app"] };
    };
    if (journaled?.state === "done") {
      const final = journaled.label ?? label;
      return answer(journaled.value, final, replayedAgentRead(journaled.info, final, label));
    }
    if (journaled?.state === "started" && target.entry.irreversible) {
      // It may or may not have reached the app: guessing could send money twice, so stop and say so.
      throw new StepFailure(
        "interrupted_irreversible_call",
        `the irreversible call ${target.tool} (${key}) was interrupted; it was not repeated, check the app before retrying`,
      );
    }
    const bound = () => [...[...this.vars].map(([name, v]) => ({ name, ...v })), ...this.trustedValues];
    if ((await this.ctx.effects.gate(target, key, args, pc, bound)) === "pause") throw new Pause();
    this.spend();
    const values = Object.fromEntries(Object.entries(args).map(([name, a]) => [name, a.value]));
    const info = { tool: target.tool, app: target.app };
    this.ctx.record.started(key, "tool", info);
    this.ctx.record.event("step_started", { key, kind: "tool", ...info });
    const ifc = this.ctx.ifc !== false;
    const top = l.integrity.top;
    const conf = l.confidentiality;
    const result = await this.ctx.effects.tool(target, key, values, {
      trusted:
        pc.label.integrity === top
          ? Object.keys(args).filter((name) => args[name]!.label.integrity === top)
          : [],
      carries: label.confidentiality,
      // Memory above what this answer carries anyway would raise it past what the plan was verified for.
      mayRead: ifc ? conf.levels.filter((c) => conf.rank(c) <= conf.rank(label.confidentiality)) : null,
    });
    const { final, agentRead } = answerLabel(l, label, result, ifc);
    // Journaled, so a replay (every later advance) takes no leaves from this answer either.
    this.ctx.record.done(
      key,
      "tool",
      result.value,
      final,
      agentRead ? { ...info, [AGENT_READ]: true } : info,
    );
    this.ctx.record.event("step_finished", { key, kind: "tool", ...info, label: final });
    return answer(result.value, final, agentRead);
  }

  /** The target a journaled call went to: the same app again, never a new choice. */
  private journaledTarget(step: ToolStep, entry: JournalEntry): Target {
    const app = entry.info?.app;
    const tool = entry.info?.tool;
    const found = (this.ctx.targets[step.tool] ?? []).find(
      (t) => (app === undefined || t.app === app) && (tool === undefined || t.tool === tool),
    );
    if (!found)
      throw new StepFailure("corrupt_state", `journal entry ${entry.key} names no target of ${step.tool}`);
    return found;
  }

  private async qllm(step: QllmStep, key: string, pc: Pc, annotate: boolean): Promise<void> {
    const inputs: Record<string, Labeled> = {};
    for (const [name, expr] of Object.entries(step.inputs)) inputs[name] = evaluate(this.evalCtx, expr);
    const label = qllmOutputLabel(
      this.ctx.lattices,
      [
        ...Object.values(inputs).map((i) => i.label),
        qllmInstructionLabel(this.ctx.lattices, step, this.ctx.query),
      ],
      pc.label,
    );
    const origins = mergeOrigins(Object.values(inputs));
    const answer = (value: unknown): Labeled => ({ value, label, origins, provenance: ["model"] });
    const journaled = this.ctx.journal.get(key);
    if (journaled?.state === "done") return this.bind(step.out, step, answer(journaled.value), annotate);
    this.spend();
    this.ctx.record.event("step_started", { key, kind: "qllm" });
    const given = this.ctx.isolation ? Object.entries(inputs) : [...this.vars.entries()];
    const values = Object.fromEntries(given.map(([name, i]) => [name, i.value]));
    const value = await this.ctx.effects.qllm(step, key, values);
    this.ctx.record.done(key, "qllm", value, label, {});
    this.ctx.record.event("step_finished", { key, kind: "qllm", label });
    this.bind(step.out, step, answer(value), annotate);
  }

  private display(
    step: { value: Parameters<typeof evaluate>[1]; title?: string },
    key: string,
    pc: Pc,
  ): void {
    if (this.ctx.journal.has(key)) return;
    const l = this.ctx.lattices;
    const shown = evaluate(this.evalCtx, step.value);
    // Same rule as the verifier: a title the user did not state marks the item too.
    const label = displayLabel(l, shown.label, pc.label, step.title, this.ctx.query);
    const redacted = !flowAllowed(l, label, displayRequirement(this.ctx.policy, l));
    const untrusted = label.integrity !== l.integrity.top;
    this.ctx.record.display({
      key,
      title: step.title ?? null,
      value: shown.value,
      label,
      redacted,
      untrusted,
      // Where the value came from, so a frontend marks only what really came from content.
      provenance: {
        from: [...shown.provenance].sort(),
        apps: sourceApps(shown.origins),
      },
    });
    this.ctx.record.done(key, "display", null, label, { redacted });
    this.ctx.record.event(redacted ? "display_redacted" : "display", { key, label, untrusted });
  }

  private async condition(step: ConditionStep, key: string, pc: Pc, _annotate: boolean): Promise<void> {
    const guard = guardOf(this.evalCtx, step.if);
    const branchPc = {
      label: guardedPc(this.ctx.lattices, pc.label, guard.label),
      origins: mergeOrigins([pc, guard]),
    };
    const taken = holds(this.vars, step.if);
    // Outputs inside a branch never become artifacts (see Annotated).
    await this.steps(taken ? step.then : step.else, `${key}.${taken ? "then" : "else"}`, branchPc, false);
  }

  private async loop(step: LoopStep, key: string, pc: Pc, annotate: boolean): Promise<void> {
    const l = this.ctx.lattices;
    const over = evaluate(this.evalCtx, step.over);
    if (!Array.isArray(over.value))
      throw new StepFailure("loop_over_non_array", `${key}: loop.over is not an array`);
    const { maxLoopIterations } = this.ctx.policy.limits;
    if (over.value.length > maxLoopIterations) {
      throw new StepFailure(
        "loop_too_long",
        `${key}: ${over.value.length} items exceed the limit of ${maxLoopIterations}`,
      );
    }
    const bodyPc = { label: guardedPc(l, pc.label, over.label), origins: mergeOrigins([pc, over]) };
    const collected: Labeled[] = [];
    for (const [i, item] of over.value.entries()) {
      this.vars.set(step.as, { ...over, value: item, label: loopVarLabel(l, over.label, pc.label) });
      await this.steps(step.body, `${key}#${i}.body`, bodyPc, false);
      if (step.collect) collected.push(evaluate(this.evalCtx, step.collect));
    }
    if (step.out) {
      const label = loopOutLabel(
        l,
        joinAll(
          l,
          collected.map((c) => c.label),
        ),
        bodyPc.label,
      );
      const value = collected.map((c) => c.value);
      const origins = mergeOrigins(collected, over.origins);
      this.bind(
        step.out,
        step,
        { value, label, origins, provenance: mergeProvenance([over, ...collected]) },
        annotate,
      );
    }
  }

  /**
   * No call and no journal entry: the value is a function of bound values, recomputed identically
   * on every replay. Its provenance is the list's (an app's answer stays the app's words, never a
   * model's reading); its label is the verifier's (selectOutputLabel).
   */
  private select(step: SelectStep, key: string, pc: Pc, annotate: boolean): void {
    const l = this.ctx.lattices;
    const over = evaluate(this.evalCtx, step.over);
    const wheres = (step.where ?? []).map((w) => ({
      path: w.path,
      equals: evaluate(this.evalCtx, w.equals),
    }));
    const value = selectValue({
      key,
      over: over.value,
      where: wheres.map((w) => ({ path: w.path, equals: w.equals.value })),
      by: step.by,
      pick: step.pick,
    });
    const parts = [over, ...wheres.map((w) => w.equals)];
    const label = selectOutputLabel(
      l,
      [...parts.map((p) => p.label), selectPathsLabel(l, step, this.ctx.query)],
      pc.label,
    );
    const result = { value, label, origins: mergeOrigins(parts), provenance: mergeProvenance(parts) };
    this.bind(step.out, step, result, annotate);
  }

  private bind(name: string, step: Step, result: Labeled, annotate: boolean): void {
    this.vars.set(name, result);
    if (annotate) this.results.push({ name, step, result });
  }

  /**
   * Every step visited, in a loop body each time, replays included: one advance does at most
   * `maxWork` of them, so nested loops over literal arrays (10⁸ display rows from four loops of 100)
   * end with a clear error instead of holding the object. A plan that fits runs whole, since a
   * replay visits no more than the run it repeats.
   */
  private visit(): void {
    const { maxWork } = this.ctx.policy.limits;
    if (++this.visited > maxWork) {
      throw new StepFailure(
        "work_limit",
        `the plan needs more than ${maxWork} step runs (loops count each pass)`,
      );
    }
  }

  private spend(): void {
    if (this.spent >= this.ctx.budget) throw new Yield();
    if (this.spent > 0 && this.ctx.deadline !== undefined && Date.now() >= this.ctx.deadline)
      throw new Yield();
    const { maxCalls } = this.ctx.policy.limits;
    if (this.made + this.spent >= maxCalls) {
      throw new StepFailure("too_many_calls", `the query reached the limit of ${maxCalls} calls`);
    }
    this.spent++;
  }
}

/** The journal key of one app's call in a fan-out: the step's key and the app (app names have no `@`). */
export const providerKey = (key: string, app: string) => `${key}@${app}`;

/** A fan-out's targets: one per app (an app binding two functionalities answers through its first), by name. */
function providersOf(targets: readonly Target[]): Target[] {
  const byApp = new Map<string, Target>();
  for (const t of targets) if (!byApp.has(t.app)) byApp.set(t.app, t);
  return [...byApp.values()].sort((a, b) => (a.app < b.app ? -1 : a.app > b.app ? 1 : 0));
}

const artifactOrigin = (artifactId: string) => `${ARTIFACT_ORIGIN}${artifactId}`;

function fromJournal(entry: JournalEntry): Labeled {
  if (!entry.label) throw new StepFailure("corrupt_state", `journal entry ${entry.key} has no label`);
  const kept = entry.info?.provenance;
  const apps = entry.info?.apps;
  return savedValue({
    value: entry.value,
    label: entry.label,
    provenance: Array.isArray(kept) ? kept : null,
    apps: Array.isArray(apps) ? sourceApps(apps) : null,
  });
}
