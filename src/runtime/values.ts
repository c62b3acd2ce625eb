import {
  type Expr,
  exprLabel,
  isStated,
  type JsonValue,
  type Label,
  type Lattices,
  type Pred,
  predLabel,
  type QueryIndex,
} from "../policy/index.ts";
import { StepFailure } from "./failure.ts";

import { PROVENANCES, type Provenance } from "./records.ts";

export type { Provenance };

/** Runtime values of the interpreter: every value travels with its label and the apps it came from. */
export interface Labeled {
  value: unknown;
  label: Label;
  provenance: readonly Provenance[];
  /** Apps (or "artifacts", the user's saved data) whose data this value carries: what a data_share consent names as `from`. */
  origins: readonly string[];
}

/** The interpreter's variables: each name the plan bound so far, with its labeled value. */
export type Vars = Map<string, Labeled>;

export interface EvalContext {
  lattices: Lattices;
  query: QueryIndex;
  vars: Vars;
}

/** An expression's value, with the same label the verifier computed statically for it. */
export function evaluate(ctx: EvalContext, expr: Expr): Labeled {
  const label = exprLabel(ctx.lattices, expr, (name) => ctx.vars.get(name)?.label, ctx.query);
  const origins = new Set<string>();
  const provenance = new Set<Provenance>();
  collect(ctx, expr, origins, provenance);
  return {
    value: rawValue(ctx.vars, expr),
    label,
    origins: [...origins].sort(),
    provenance: [...provenance].sort(),
  };
}

function collect(ctx: EvalContext, expr: Expr, origins: Set<string>, provenance: Set<Provenance>): void {
  if ("lit" in expr) {
    provenance.add(statedLiteral(expr.lit, ctx.query) ? "user" : "planner");
    return;
  }
  if ("ref" in expr) {
    const bound = ctx.vars.get(expr.ref);
    for (const origin of bound?.origins ?? []) origins.add(origin);
    // A field of an app's answer is still the app's words (the path's choice shows in the label).
    for (const p of bound?.provenance ?? []) provenance.add(p);
    return;
  }
  if ("obj" in expr && Object.keys(expr.obj).some((k) => !isStated(k, ctx.query))) provenance.add("planner");
  for (const part of "obj" in expr ? Object.values(expr.obj) : expr.arr)
    collect(ctx, part, origins, provenance);
}

/** Whether the user wrote every scalar of a literal (its keys included). */
export function statedLiteral(value: JsonValue, q: QueryIndex): boolean {
  if (value === null || typeof value !== "object") return isStated(value, q);
  if (Array.isArray(value)) return value.every((v) => statedLiteral(v, q));
  return Object.entries(value).every(([k, v]) => isStated(k, q) && statedLiteral(v, q));
}

export function mergeProvenance(values: Iterable<{ provenance: readonly Provenance[] }>): Provenance[] {
  const all = new Set<Provenance>();
  for (const v of values) for (const p of v.provenance) all.add(p);
  return [...all].sort();
}

export function mergeOrigins(
  values: Iterable<{ origins: readonly string[] }>,
  extra: readonly string[] = [],
): string[] {
  const all = new Set(extra);
  for (const v of values) for (const o of v.origins) all.add(o);
  return [...all].sort();
}

function rawValue(vars: Vars, expr: Expr): unknown {
  if ("lit" in expr) return expr.lit;
  if ("ref" in expr) {
    const bound = vars.get(expr.ref);
    if (!bound) throw new StepFailure("unbound_name", `"${expr.ref}" has no value`);
    return project(bound.value, expr.ref, expr.path ?? []);
  }
  if ("obj" in expr) {
    const out: Record<string, unknown> = {};
    for (const [key, part] of Object.entries(expr.obj)) out[key] = rawValue(vars, part);
    return out;
  }
  return expr.arr.map((part) => rawValue(vars, part));
}

function project(value: unknown, name: string, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const [i, key] of path.entries()) {
    const where = `${name}${path
      .slice(0, i + 1)
      .map((k) => `[${JSON.stringify(k)}]`)
      .join("")}`;
    if (current === null || typeof current !== "object") {
      throw new StepFailure("projection_failed", `${where}: a step through a non-object`);
    }
    if (!Object.hasOwn(current, key)) throw new StepFailure("projection_failed", `${where}: no such key`);
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** A guard's label and the apps its data came from: what a call inside the guard depends on. */
export function guardOf(ctx: EvalContext, pred: Pred): { label: Label; origins: string[] } {
  const origins = new Set<string>();
  const visit = (p: Pred): void => {
    switch (p.op) {
      case "and":
      case "or":
        for (const arg of p.args) visit(arg);
        return;
      case "not":
        visit(p.arg);
        return;
      case "exists":
        collect(ctx, p.value, origins, new Set());
        return;
      default:
        collect(ctx, p.left, origins, new Set());
        collect(ctx, p.right, origins, new Set());
    }
  };
  visit(pred);
  return {
    label: predLabel(ctx.lattices, pred, (name) => ctx.vars.get(name)?.label, ctx.query),
    origins: [...origins].sort(),
  };
}

/** Predicates compare JSON values; comparing unlike types is false rather than a guess. */
export function holds(vars: Vars, pred: Pred): boolean {
  switch (pred.op) {
    case "and":
      return pred.args.every((p) => holds(vars, p));
    case "or":
      return pred.args.some((p) => holds(vars, p));
    case "not":
      return !holds(vars, pred.arg);
    case "exists":
      try {
        const v = rawValue(vars, pred.value);
        return v !== null && v !== undefined;
      } catch (error) {
        if (error instanceof StepFailure && error.code === "projection_failed") return false;
        throw error;
      }
    default: {
      const left = rawValue(vars, pred.left);
      const right = rawValue(vars, pred.right);
      switch (pred.op) {
        case "eq":
          return jsonEqual(left, right);
        case "ne":
          return !jsonEqual(left, right);
        case "contains":
          if (typeof left === "string" && typeof right === "string")
            return left.toLowerCase().includes(right.toLowerCase());
          return Array.isArray(left) && left.some((item) => jsonEqual(item, right));
        default:
          return compare(pred.op, left, right);
      }
    }
  }
}

function compare(op: "lt" | "le" | "gt" | "ge", a: unknown, b: unknown): boolean {
  const comparable =
    (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
  if (!comparable) return false;
  const [x, y] = [a as number | string, b as number | string];
  return op === "lt" ? x < y : op === "le" ? x <= y : op === "gt" ? x > y : x >= y;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** An artifact as the runtime reads it back: its value, label, and where its value first came from. */
export interface SavedValue {
  value: unknown;
  label: Label;
  /** Who made the value before it was kept (null: kept before this was recorded). */
  provenance?: readonly string[] | null;
  /** The apps whose data it carries (null: kept before this was recorded). */
  apps?: readonly string[] | null;
}

/**
 * A retrieved artifact's value as the interpreter binds it: saved data, and still whoever made it
 * (an app's answer or a model's reading stays content's in a later consent, #43). Its origins are
 * the interpreter's `artifact:<id>`, which grants name, and the apps whose data it carries: kept
 * once is not the user's own, and a data_share consent still names the bank a saved total came from.
 */
export function savedValue(artifact: SavedValue): Labeled {
  return {
    value: artifact.value,
    label: artifact.label,
    origins: ["artifacts", ...sourceApps(artifact.apps ?? [])],
    provenance: keptProvenance(artifact.provenance),
  };
}

/** The apps among a value's origins: what an artifact keeps of them (its own ids are re-derived). */
export function sourceApps(origins: readonly unknown[]): string[] {
  const apps = new Set<string>();
  for (const o of origins)
    if (typeof o === "string" && o !== "artifacts" && !o.startsWith(ARTIFACT_ORIGIN)) apps.add(o);
  return [...apps].sort();
}

/** The origin of a retrieved artifact's data: `artifact:<id>`, which grants and consents name. */
export const ARTIFACT_ORIGIN = "artifact:";

/** Stored provenance, read as a closed set: anything else is dropped; "artifacts" always stays. */
export function keptProvenance(stored: readonly unknown[] | null | undefined): Provenance[] {
  const known = new Set<Provenance>(["artifacts"]);
  for (const p of stored ?? [])
    if ((PROVENANCES as readonly unknown[]).includes(p)) known.add(p as Provenance);
  return [...known].sort();
}
