/**
 * The information-flow verifier (DSL.md, "Information flow"). It computes a static label for every
 * value of a validated plan, checks each tool argument and each tool call against its endpoint
 * policy, and each display item against the display policy. One pass, linear in the plan: names
 * are bound once in the whole plan (the validator guarantees it), so a single map serves as the
 * environment and scopes need no copying.
 */

import { sinkFindings } from "./call-check.ts";
import type { ArtifactIndex, PlanContext } from "./context.ts";
import { buildCorrection, type Correction } from "./correction.ts";
import type { DisplayStep, Expr, JsonValue, Pred, SelectStep, SelectWhere, Step, ToolStep } from "./dsl.ts";
import {
  argumentRequirement,
  callRequirement,
  displayRequirement,
  outputBaseline,
  pcRequirement,
} from "./endpoints.ts";
import { causes, type Flow, leaf, type Source, type Violation } from "./flow.ts";
import { ownGet } from "./json.ts";
import {
  bottomLabel,
  exceedsConfidentiality,
  join,
  type Label,
  labelEquals,
  normalizeLabel,
  type Requirement,
  topLabel,
} from "./labels.ts";
import type { Lattices } from "./lattice.ts";
import { childPath, type PathSegment } from "./paths.ts";
import { policyLattices } from "./policy-schema.ts";
import { chosenLabel, indexQuery, literalLabel, type QueryIndex } from "./provenance.ts";
import {
  displayLabel,
  guardedPc,
  initialPc,
  loopOutLabel,
  loopVarLabel,
  selectPathsLabel,
  sinkLabel,
} from "./runtime-labels.ts";
import type { ValidPlan } from "./validate.ts";
import { remedyOf } from "./vouch.ts";

export type { Violation } from "./flow.ts";

export interface DisplayCheck {
  readonly path: string;
  readonly label: Label;
  /** The label exceeds the display policy: the item is withheld; the rest of the plan still runs. */
  readonly redacted: boolean;
  /** Derived from something the user did not state, value or title (integrity below the top): shown marked as such. */
  readonly untrusted: boolean;
  readonly required: Requirement;
  /** Causes of the redaction (empty when not redacted). */
  readonly sources: readonly Source[];
}

export interface Verdict {
  /** False iff a tool flow is violated and the policy says `reject`. */
  readonly ok: boolean;
  readonly violations: readonly Violation[];
  readonly redactions: readonly DisplayCheck[];
  readonly displays: readonly DisplayCheck[];
  /** The static label of every bound name (`out` and loop `as`). */
  readonly labels: ReadonlyMap<string, Label>;
  /** The planner's one retry (`selfCorrection: 1`), when rejected. */
  readonly correction?: Correction;
}

interface State {
  readonly l: Lattices;
  readonly ctx: PlanContext;
  readonly q: QueryIndex;
  readonly env: Map<string, Flow>;
  readonly labels: Map<string, Label>;
  readonly violations: Violation[];
  readonly displays: DisplayCheck[];
  /** The shared flow of every stated literal. */
  readonly bottom: Flow;
  readonly display: Requirement;
  readonly tools: Map<string, ToolInfo>;
}

function bind(st: State, name: string, flow: Flow): void {
  st.env.set(name, flow);
  st.labels.set(name, flow.label);
}

/**
 * The flow of an expression at `parent` + `key`. The path string is built only where it can be
 * reported (a planner-chosen literal), keeping the common case (refs) allocation-free.
 */
function exprFlow(st: State, expr: Expr, parent: string, key: PathSegment): Flow {
  if ("lit" in expr) {
    const label = literalLabel(st.l, expr.lit, st.q);
    // A stated literal has the bottom label, so it never causes a violation: no source needed.
    if (label === st.bottom.label) return st.bottom;
    return leaf(label, { kind: "literal", path: childPath(parent, key), label });
  }
  if ("ref" in expr) {
    // A projection is its binding's node, joined with the path the planner chose. Unbound: fail closed.
    const whole = st.env.get(expr.ref) ?? leaf(topLabel(st.l));
    const chosen = expr.path?.length ? chosenLabel(st.l, expr.path, st.q) : st.bottom.label;
    if (chosen === st.bottom.label || labelEquals(st.l, chosen, st.bottom.label)) return whole;
    const path = childPath(childPath(parent, key), "path");
    const choice = leaf(chosen, { kind: "literal", path, label: chosen });
    return { label: join(st.l, whole.label, chosen), parents: [whole, choice] };
  }
  const parents: Flow[] = [];
  if ("obj" in expr) {
    const base = childPath(childPath(parent, key), "obj");
    const keys = chosenLabel(st.l, Object.keys(expr.obj), st.q);
    if (!labelEquals(st.l, keys, st.bottom.label))
      parents.push(leaf(keys, { kind: "literal", path: base, label: keys }));
    for (const k of Object.keys(expr.obj)) parents.push(exprFlow(st, expr.obj[k] as Expr, base, k));
  } else {
    const base = childPath(childPath(parent, key), "arr");
    for (let i = 0; i < expr.arr.length; i++) parents.push(exprFlow(st, expr.arr[i] as Expr, base, i));
  }
  return { label: joinOf(st, parents), parents };
}

/** constructedLabel of the flows' labels, without an intermediate array. */
function joinOf(st: State, flows: readonly Flow[], start: Label = st.bottom.label): Label {
  let label = start;
  for (const f of flows) label = join(st.l, label, f.label);
  return label;
}

function predFlows(st: State, pred: Pred, path: string, out: Flow[]): void {
  switch (pred.op) {
    case "and":
    case "or":
      for (let i = 0; i < pred.args.length; i++) {
        predFlows(st, pred.args[i] as Pred, childPath(childPath(path, "args"), i), out);
      }
      return;
    case "not":
      predFlows(st, pred.arg, childPath(path, "arg"), out);
      return;
    case "exists":
      out.push(exprFlow(st, pred.value, path, "value"));
      return;
    default:
      out.push(exprFlow(st, pred.left, path, "left"));
      out.push(exprFlow(st, pred.right, path, "right"));
  }
}

/** pc inside a condition or loop: the guard is a source of its own so violations can name it. */
function enterGuard(st: State, pc: Flow, guardParts: Flow[], guardPath: string): Flow {
  const label = joinOf(st, guardParts);
  const guard: Flow = { label, parents: guardParts, source: { kind: "guard", path: guardPath, label } };
  return { label: guardedPc(st.l, pc.label, label), parents: [pc, guard] };
}

/** Checks what reaches an endpoint: `value` joined with pc. Flow nodes for causes are built only on a violation. */
function check(
  st: State,
  step: ToolStep,
  path: string,
  argument: string | null,
  value: Flow,
  pc: Flow,
  required: Requirement,
): void {
  const label = argument === null ? pc.label : sinkLabel(st.l, value.label, pc.label);
  const remedy = remedyOf(st.ctx.policy, step.tool, argument);
  const findings = sinkFindings(
    st.l,
    st.ctx.policy,
    ownGet(st.ctx.catalog, step.tool),
    label,
    required,
    remedy,
  );
  if (findings.length === 0) return;
  const reaching: Flow = argument === null ? pc : { label, parents: [value, pc] };
  for (const { rule, endorsable, deferred } of findings) {
    const { sources, truncated } = causes(st.l, reaching, required, rule);
    st.violations.push({
      path,
      stepOut: step.out,
      tool: step.tool,
      argument,
      rule,
      label,
      required,
      sources,
      sourcesTruncated: truncated,
      endorsable,
      ...(deferred && { deferred }),
    });
  }
}

/** Per functionality, resolved once per verification: requirements do not depend on the step. */
interface ToolInfo {
  readonly call: Requirement;
  readonly args: Map<string, Requirement>;
  readonly baseline: Label;
}

function toolInfo(st: State, tool: string): ToolInfo {
  let info = st.tools.get(tool);
  if (!info) {
    const entry = ownGet(st.ctx.catalog, tool);
    info = {
      call: callRequirement(st.ctx.policy, st.l, tool, entry),
      args: new Map(),
      baseline: outputBaseline(st.ctx.policy, st.l, tool, entry),
    };
    st.tools.set(tool, info);
  }
  return info;
}

function argRequirement(st: State, tool: string, info: ToolInfo, arg: string): Requirement {
  let req = info.args.get(arg);
  if (!req) {
    req = argumentRequirement(st.ctx.policy, st.l, tool, ownGet(st.ctx.catalog, tool), arg);
    info.args.set(arg, req);
  }
  return req;
}

function toolStep(st: State, step: ToolStep, path: string, pc: Flow): void {
  const info = toolInfo(st, step.tool);
  const argsPath = childPath(path, "args");
  const base = leaf(info.baseline, { kind: "tool", path, label: info.baseline, tool: step.tool });
  const parents: Flow[] = [base];
  let label = info.baseline;
  const floors: Requirement[] = [];
  for (const name of Object.keys(step.args)) {
    const arg = exprFlow(st, step.args[name] as Expr, argsPath, name);
    parents.push(arg);
    label = join(st.l, label, arg.label);
    const required = argRequirement(st, step.tool, info, name);
    floors.push(required);
    check(st, step, path, name, arg, pc, required);
  }
  check(st, step, path, null, pc, pc, pcRequirement(st.ctx.policy, st.l, step.tool, info.call, floors));
  parents.push(pc);
  // = toolOutputLabel(baseline, args, pc), accumulated above to avoid a second pass over the args.
  bind(st, step.out, { label: join(st.l, label, pc.label), parents });
}

function artifactFlow(st: State, artifacts: ArtifactIndex, id: string, path: string): Flow {
  const meta = ownGet(artifacts, id);
  const label = meta ? normalizeLabel(st.l, meta.label) : topLabel(st.l);
  return leaf(label, { kind: "artifact", path, label, artifact: id });
}

function displayStep(st: State, step: DisplayStep, path: string, pc: Flow): void {
  const { l } = st;
  const required = st.display;
  const value = exprFlow(st, step.value, path, "value");
  const label = displayLabel(l, value.label, pc.label, step.title, st.q);
  const redacted = exceedsConfidentiality(l, label, required);
  const sources = redacted
    ? causes(l, { label, parents: [value, pc] }, required, "confidentiality").sources
    : [];
  st.displays.push({
    path,
    label,
    redacted,
    untrusted: label.integrity !== l.integrity.top,
    required,
    sources,
  });
}

/** = selectOutputLabel([over, where values, paths], pc), with a node per part so causes name them. */
function selectStep(st: State, step: SelectStep, path: string, pc: Flow): void {
  const parts: Flow[] = [exprFlow(st, step.over, path, "over")];
  const where = childPath(path, "where");
  const wheres = step.where ?? [];
  for (let i = 0; i < wheres.length; i++)
    parts.push(exprFlow(st, (wheres[i] as SelectWhere).equals, childPath(where, i), "equals"));
  const paths = selectPathsLabel(st.l, step, st.q);
  if (!labelEquals(st.l, paths, st.bottom.label))
    parts.push(leaf(paths, { kind: "literal", path, label: paths }));
  parts.push(pc);
  bind(st, step.out, { label: joinOf(st, parts), parents: parts });
}

function steps(st: State, list: readonly Step[], base: string, pc: Flow): void {
  for (let i = 0; i < list.length; i++) stepFlow(st, list[i] as Step, childPath(base, i), pc);
}

function stepFlow(st: State, step: Step, path: string, pc: Flow): void {
  const { l } = st;
  switch (step.kind) {
    case "retrieve":
      bind(st, step.out, artifactFlow(st, st.ctx.artifacts, step.artifact, path));
      return;
    case "tool":
      toolStep(st, step, path, pc);
      return;
    case "qllm": {
      const inputs: Flow[] = [];
      const inputsPath = childPath(path, "inputs");
      for (const k of Object.keys(step.inputs))
        inputs.push(exprFlow(st, step.inputs[k] as Expr, inputsPath, k));
      // The planner wrote the prompt and schema: they steer the output like literals do.
      inputs.push(exprFlow(st, { lit: step.prompt }, path, "prompt"));
      inputs.push(exprFlow(st, { lit: step.schema as JsonValue }, path, "schema"));
      // = qllmOutputLabel([...inputs, qllmInstructionLabel], pc)
      const label = joinOf(st, inputs, pc.label);
      bind(st, step.out, { label, parents: [...inputs, pc] });
      return;
    }
    case "display":
      displayStep(st, step, path, pc);
      return;
    case "condition": {
      const parts: Flow[] = [];
      predFlows(st, step.if, childPath(path, "if"), parts);
      const inner = enterGuard(st, pc, parts, childPath(path, "if"));
      steps(st, step.then, childPath(path, "then"), inner);
      steps(st, step.else, childPath(path, "else"), inner);
      return;
    }
    case "loop": {
      const over = exprFlow(st, step.over, path, "over");
      const inner = enterGuard(st, pc, [over], childPath(path, "over"));
      bind(st, step.as, { label: loopVarLabel(l, over.label, pc.label), parents: [over, pc] });
      steps(st, step.body, childPath(path, "body"), inner);
      if (step.collect !== undefined && step.out !== undefined) {
        const collect = exprFlow(st, step.collect, path, "collect");
        bind(st, step.out, { label: loopOutLabel(l, collect.label, inner.label), parents: [collect, inner] });
      }
      return;
    }
    case "select":
      selectStep(st, step, path, pc);
      return;
  }
}

/** Verifies a validated plan. Pure and total: it never throws on a plan `validatePlan` accepted. */
export function verifyPlan(plan: ValidPlan, ctx: PlanContext): Verdict {
  const l = policyLattices(ctx.policy);
  const st: State = {
    l,
    ctx,
    q: indexQuery(ctx.query, ctx.trustedPlanner === true),
    env: new Map(),
    labels: new Map(),
    violations: [],
    displays: [],
    bottom: leaf(bottomLabel(l)),
    display: displayRequirement(ctx.policy, l),
    tools: new Map(),
  };
  steps(st, plan.steps, "steps", leaf(initialPc(l)));
  const ok = st.violations.every((v) => v.endorsable || v.deferred === true);
  const verdict: Verdict = {
    ok,
    violations: st.violations,
    redactions: st.displays.filter((d) => d.redacted),
    displays: st.displays,
    labels: st.labels,
  };
  if (!ok && ctx.policy.selfCorrection === 1) {
    return { ...verdict, correction: buildCorrection(st.violations, ctx) };
  }
  return verdict;
}
