/**
 * The plan validator (DSL.md, "Validation"). In order: the raw input is a bounded plain JSON tree;
 * it has the DSL's shape; it is within the tenant's limits; names are bound once, are not
 * reserved, and are used only where visible; artifacts and tools exist; arguments fit the
 * request schemas. Total: it returns errors for any input and never throws.
 */
import type { CatalogEntry, PlanContext } from "./context.ts";
import { type Expr, type Plan, type Pred, RESERVED_NAMES, type Step, type ToolStep } from "./dsl.ts";
import { isRecord, type JsonValue, ownGet } from "./json.ts";
import { jsonShapeError } from "./json-guard.ts";
import { childPath, type PathSegment } from "./paths.ts";
import { MAX_ERRORS, type PlanError } from "./plan-errors.ts";
import { structuralErrors } from "./structure.ts";

declare const validated: unique symbol;
/**
 * A plan that passed validation: the input object itself, typed readonly. The hub must run
 * exactly this object (not the raw text, not a re-parse), so what was verified is what runs.
 */
export type ValidPlan = Plan & { readonly [validated]: true };

export type ValidationResult =
  | { readonly ok: true; readonly plan: ValidPlan }
  | {
      readonly ok: false;
      readonly code: "invalid_plan";
      readonly message: string;
      readonly details: readonly PlanError[];
    };

export function validatePlan(input: unknown, ctx: PlanContext): ValidationResult {
  try {
    return validate(input, ctx);
  } catch {
    // Fail closed on a bug; nothing about the input goes into the message.
    return fail([{ path: "", rule: "internal", message: "the validator failed; the plan is refused" }]);
  }
}

function fail(errors: PlanError[]): ValidationResult {
  return {
    ok: false,
    code: "invalid_plan",
    message: "the plan failed validation",
    details: errors.slice(0, MAX_ERRORS),
  };
}

function validate(input: unknown, ctx: PlanContext): ValidationResult {
  const shape = jsonShapeError(input);
  if (shape) return fail([shape]);
  const shapeErrors = structuralErrors(input);
  if (shapeErrors.length > 0) return fail(shapeErrors);
  // structuralErrors enforces PlanSchema's JSON Schema, so the input is a Plan.
  const plan = input as Plan;
  const errors = checkPlanSemantics(plan, ctx);
  if (errors.length > 0) return fail(errors);
  return { ok: true, plan: plan as ValidPlan };
}

/**
 * Visible names with push/pop scopes. Names are unique in the plan, so leaving a scope just
 * deletes what it bound: each name is added and removed once, keeping the pass linear.
 */
class Scopes {
  readonly visible = new Set<string>();
  private readonly frames: string[][] = [[]];

  bind(name: string): void {
    this.visible.add(name);
    this.frames[this.frames.length - 1]?.push(name);
  }

  enter(): void {
    this.frames.push([]);
  }

  leave(): void {
    for (const name of this.frames.pop() ?? []) this.visible.delete(name);
  }
}

/** A reference not visible where it is used; classified once every binder is known. */
interface Unresolved {
  readonly name: string;
  readonly parent: string;
  readonly key: PathSegment;
}

/**
 * One walk over the plan: limits, binders (single assignment, reserved words), uses in lexical
 * scope, artifacts, tools and arguments. Limit violations stop the walk and are reported alone.
 */
function checkPlanSemantics(plan: Plan, ctx: PlanContext): PlanError[] {
  const { maxSteps, maxDepth } = ctx.policy.limits;
  const errors: PlanError[] = [];
  const limitErrors: PlanError[] = [];
  /** name → path of the step that binds it, over the whole plan. */
  const bindings = new Map<string, string>();
  const scopes = new Scopes();
  const unresolved: Unresolved[] = [];
  let count = 0;

  const bind = (name: string, stepPath: string, field: string): void => {
    scopes.bind(name);
    if (RESERVED_NAMES.has(name)) {
      errors.push({
        path: childPath(stepPath, field),
        rule: "name_reserved",
        message: `"${name}" is a reserved word`,
      });
      return;
    }
    const first = bindings.get(name);
    if (first !== undefined) {
      errors.push({
        path: childPath(stepPath, field),
        rule: "name_duplicate",
        message: `"${name}" is already bound at ${first}; every name is bound once in the whole plan`,
      });
      return;
    }
    bindings.set(name, stepPath);
  };

  // Paths are built from (parent, key) only when an error is reported.
  const expr = (e: Expr, parent: string, key: PathSegment): void => {
    if ("lit" in e) return;
    if ("ref" in e) {
      if (!scopes.visible.has(e.ref)) unresolved.push({ name: e.ref, parent, key });
      return;
    }
    if ("obj" in e) {
      const base = childPath(childPath(parent, key), "obj");
      for (const k of Object.keys(e.obj)) expr(e.obj[k] as Expr, base, k);
    } else {
      const base = childPath(childPath(parent, key), "arr");
      for (let i = 0; i < e.arr.length; i++) expr(e.arr[i] as Expr, base, i);
    }
  };

  const pred = (p: Pred, path: string): void => {
    switch (p.op) {
      case "and":
      case "or":
        for (let i = 0; i < p.args.length; i++)
          pred(p.args[i] as Pred, childPath(childPath(path, "args"), i));
        return;
      case "not":
        pred(p.arg, childPath(path, "arg"));
        return;
      case "exists":
        expr(p.value, path, "value");
        return;
      default:
        expr(p.left, path, "left");
        expr(p.right, path, "right");
    }
  };

  const record = (r: Readonly<Record<string, Expr>>, path: string): void => {
    for (const k of Object.keys(r)) expr(r[k] as Expr, path, k);
  };

  const body = (list: readonly Step[], path: string, depth: number): void => {
    scopes.enter();
    walk(list, path, depth);
    scopes.leave();
  };

  const walk = (list: readonly Step[], base: string, depth: number): void => {
    for (let i = 0; i < list.length && limitErrors.length === 0; i++) {
      const step = list[i] as Step;
      const path = childPath(base, i);
      if (++count > maxSteps) {
        limitErrors.push({
          path: "steps",
          rule: "limit_steps",
          message: `the plan has more than ${maxSteps} steps`,
        });
        return;
      }
      if (depth > maxDepth) {
        limitErrors.push({
          path,
          rule: "limit_depth",
          message: `steps nest ${depth} deep; the limit is ${maxDepth}`,
        });
        return;
      }
      switch (step.kind) {
        case "retrieve":
          if (ownGet(ctx.artifacts, step.artifact) === undefined) {
            errors.push({
              path: childPath(path, "artifact"),
              rule: "artifact_unknown",
              message: `"${step.artifact}" is not an artifact the planner was shown`,
            });
          }
          bind(step.out, path, "out");
          break;
        case "tool": {
          record(step.args, childPath(path, "args"));
          const entry = ownGet(ctx.catalog, step.tool);
          if (entry === undefined) {
            errors.push({
              path: childPath(path, "tool"),
              rule: "tool_unknown",
              message: `"${step.tool}" is not an approved functionality`,
            });
          } else {
            checkArguments(step, path, entry, ctx, errors);
            if (step.providers !== undefined) checkProviders(step, path, entry, ctx, errors);
          }
          bind(step.out, path, "out");
          break;
        }
        case "qllm":
          record(step.inputs, childPath(path, "inputs"));
          bind(step.out, path, "out");
          break;
        case "display":
          expr(step.value, path, "value");
          break;
        case "condition":
          pred(step.if, childPath(path, "if"));
          body(step.then, childPath(path, "then"), depth + 1);
          body(step.else, childPath(path, "else"), depth + 1);
          break;
        case "loop":
          expr(step.over, path, "over");
          scopes.enter();
          bind(step.as, path, "as");
          walk(step.body, childPath(path, "body"), depth + 1);
          if (step.collect !== undefined) expr(step.collect, path, "collect");
          scopes.leave();
          if ((step.collect === undefined) !== (step.out === undefined)) {
            errors.push({
              path,
              rule: "loop_collect_out",
              message: "a loop has both `collect` and `out` (its result) or neither",
            });
          }
          if (step.out !== undefined) bind(step.out, path, "out");
          break;
        case "select":
          expr(step.over, path, "over");
          for (const [j, w] of (step.where ?? []).entries())
            expr(w.equals, childPath(childPath(path, "where"), j), "equals");
          // An order needs the field it orders by; a filter alone has none to read, so one would mislead.
          if ((step.pick === "all") !== (step.by === undefined)) {
            errors.push({
              path: childPath(path, "by"),
              rule: "select_by",
              message:
                step.pick === "all"
                  ? 'a select with pick "all" keeps list order and has no `by`'
                  : `a select with pick "${step.pick}" needs \`by\`, the path of the field it compares`,
            });
          }
          bind(step.out, path, "out");
          break;
      }
    }
  };

  walk(plan.steps, "steps", 0);
  if (limitErrors.length > 0) return limitErrors;
  for (const u of unresolved) {
    const at = bindings.get(u.name);
    errors.push(
      at === undefined
        ? {
            path: childPath(u.parent, u.key),
            rule: "ref_undefined",
            message: `"${u.name}" is not bound anywhere in the plan`,
          }
        : {
            path: childPath(u.parent, u.key),
            rule: "ref_not_visible",
            message: `"${u.name}" (bound at ${at}) is not visible here: it is bound later, or inside a branch or loop body that has ended`,
          },
    );
  }
  return errors;
}

/**
 * A fan-out (`providers: "all"`) compares what every serving app answers: only in catalog mode,
 * where the hub holds the list (in apps mode a step names one app's functionality), and never on
 * an irreversible entry, since acting through every app at once is never what a comparison means.
 */
function checkProviders(
  step: ToolStep,
  path: string,
  entry: CatalogEntry,
  ctx: PlanContext,
  errors: PlanError[],
): void {
  const at = childPath(path, "providers");
  if (ctx.trustedPlanner !== true) {
    errors.push({
      path: at,
      rule: "providers_refused",
      message: "a step runs on every serving app only in catalog mode; here it names one app's functionality",
    });
  } else if (entry.irreversible) {
    errors.push({
      path: at,
      rule: "providers_refused",
      message: `${step.tool} cannot be undone: it runs on one app, never on every app that serves it`,
    });
  }
}

// ---- arguments against the functionality's request schema -------------------------------

/** The value of an expression built from literals only, or undefined if it depends on a binding. */
function constantValue(e: Expr): { value: JsonValue } | undefined {
  if ("lit" in e) return { value: e.lit };
  if ("ref" in e) return undefined;
  if ("arr" in e) {
    const items: JsonValue[] = [];
    for (const item of e.arr) {
      const c = constantValue(item);
      if (!c) return undefined;
      items.push(c.value);
    }
    return { value: items };
  }
  const obj: Record<string, JsonValue> = {};
  for (const k of Object.keys(e.obj)) {
    const c = constantValue(e.obj[k] as Expr);
    if (!c) return undefined;
    obj[k] = c.value;
  }
  return { value: obj };
}

/**
 * Argument names against the request schema's `properties`, `required` and
 * `additionalProperties: false`; then, with a checker, the literal arguments' values. The checker
 * sees the whole request schema (so `$ref`s resolve) with `required` narrowed to the literal
 * arguments, and an object of those arguments only: the others are not known until run time.
 */
function checkArguments(
  step: ToolStep,
  path: string,
  entry: CatalogEntry,
  ctx: PlanContext,
  errors: PlanError[],
): void {
  const schema = entry.requestSchema;
  const argsPath = childPath(path, "args");
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === "string")
    : [];
  if (schema.additionalProperties === false) {
    for (const name of Object.keys(step.args)) {
      if (!Object.hasOwn(properties, name)) {
        const known = Object.keys(properties).join(", ") || "none";
        errors.push({
          path: childPath(argsPath, name),
          rule: "arg_unknown",
          message: `${step.tool} has no argument "${name}" (its arguments: ${known})`,
        });
      }
    }
  }
  for (const name of required) {
    if (!Object.hasOwn(step.args, name)) {
      errors.push({
        path: argsPath,
        rule: "arg_missing",
        message: `${step.tool} requires argument "${name}"`,
      });
    }
  }
  const checker = ctx.checkSchema;
  if (!checker) return;
  const literals: Record<string, JsonValue> = {};
  let any = false;
  for (const name of Object.keys(step.args)) {
    const c = constantValue(step.args[name] as Expr);
    if (c) {
      literals[name] = c.value;
      any = true;
    }
  }
  if (!any) return;
  let messages: readonly string[];
  try {
    messages = checker({ ...schema, required: required.filter((r) => Object.hasOwn(literals, r)) }, literals);
  } catch {
    messages = ["the request schema could not be checked"];
  }
  for (const m of messages) {
    errors.push({ path: argsPath, rule: "arg_literal", message: `literal arguments of ${step.tool}: ${m}` });
  }
}
