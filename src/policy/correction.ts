/**
 * The structured exception for the planner's one retry (`selfCorrection: 1`). It is built only from
 * the policy, the catalog and artifact metadata the planner already saw, and the plan's structure
 * (paths, tool and argument names, labels): never from a value, so nothing an app returned can
 * reach the planner through it.
 */
import type { PlanContext } from "./context.ts";
import { outputBaseline } from "./endpoints.ts";
import type { Source, Violation } from "./flow.ts";
import { belowIntegrity, type FlowRule, type Label, normalizeLabel, type Requirement } from "./labels.ts";
import { policyLattices } from "./policy-schema.ts";

export interface CorrectionItem {
  readonly path: string;
  readonly tool: string;
  readonly argument: string | null;
  readonly rule: FlowRule;
  readonly required: Requirement;
  readonly actual: Label;
  /** What caused it, as plan structure: "tool mail.search at steps[0]", "guard at steps[2].if". */
  readonly causes: readonly string[];
  /** The allowed alternative. */
  readonly hint: string;
}

export interface Correction {
  readonly kind: "flow_violation";
  readonly message: string;
  readonly items: readonly CorrectionItem[];
}

const MAX_ALTERNATIVES = 5;

function describe(s: Source): string {
  switch (s.kind) {
    case "literal":
      return `literal at ${s.path} (not in the user's query: chosen by the planner)`;
    case "artifact":
      return `artifact ${s.artifact} at ${s.path}`;
    case "tool":
      return `output of ${s.tool} at ${s.path}`;
    case "guard":
      return `guard at ${s.path}`;
  }
}

/** Sources of the required integrity the planner could use instead: artifacts and tools by name. */
function integrityAlternatives(ctx: PlanContext, required: Requirement): string {
  const l = policyLattices(ctx.policy);
  const artifacts = Object.keys(ctx.artifacts)
    .filter((id) => {
      const meta = ctx.artifacts[id];
      return meta !== undefined && !belowIntegrity(l, normalizeLabel(l, meta.label), required);
    })
    .sort()
    .slice(0, MAX_ALTERNATIVES);
  const tools = Object.keys(ctx.catalog)
    .filter((t) => !belowIntegrity(l, outputBaseline(ctx.policy, l, t, ctx.catalog[t]), required))
    .sort()
    .slice(0, MAX_ALTERNATIVES);
  const options = ["a literal the user stated in the query"];
  if (artifacts.length > 0) options.push(`an artifact labeled so (${artifacts.join(", ")})`);
  if (tools.length > 0) options.push(`the output of ${tools.join(", ")} (if its own inputs qualify too)`);
  const last = options.pop() as string;
  return options.length === 0 ? last : `${options.join(", ")} or ${last}`;
}

function hint(ctx: PlanContext, v: Violation): string {
  const guards = v.sources.filter((s) => s.kind === "guard").map((s) => s.path);
  const underGuard =
    guards.length > 0
      ? ` It runs under the guard at ${guards.join(", ")}: move the step out of that condition or loop, or guard on other data.`
      : "";
  const what = v.argument === null ? `The call to ${v.tool}` : `Argument "${v.argument}" of ${v.tool}`;
  if (v.rule === "integrity") {
    const min = v.required.minIntegrity;
    const base = `${what} needs integrity "${min}" or higher but gets "${v.label.integrity}".`;
    if (v.argument === null) return base + underGuard;
    return `${base} Take it from a source of integrity "${min}": ${integrityAlternatives(ctx, v.required)}.${underGuard}`;
  }
  const max = v.required.maxConfidentiality;
  return `${what} accepts confidentiality up to "${max}" but gets "${v.label.confidentiality}". Do not pass data above "${max}" to ${v.tool}.${underGuard}`;
}

export function buildCorrection(violations: readonly Violation[], ctx: PlanContext): Correction {
  const items = violations.map(
    (v): CorrectionItem => ({
      path: v.path,
      tool: v.tool,
      argument: v.argument,
      rule: v.rule,
      required: v.required,
      actual: v.label,
      causes: v.sources.map(describe),
      hint: hint(ctx, v),
    }),
  );
  return {
    kind: "flow_violation",
    message: `The plan was rejected by the information-flow policy (${items.length} violation(s)). Write a new complete plan that avoids them; this is the only retry.`,
    items,
  };
}
