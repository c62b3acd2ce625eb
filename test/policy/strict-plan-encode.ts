/**
 * The DSL → strict-form projection of src/policy/strict-plan.ts, the inverse of its
 * `decodeStrictPlan`: the tests' oracle for the round trip (nothing in src writes this form).
 */
import { isRecord, type JsonValue } from "../../src/policy/json.ts";

type Doc = JsonValue;
const entries = (map: unknown, each: (v: unknown) => Doc): Doc[] =>
  Object.entries(map as Record<string, unknown>).map(([name, value]) => ({ name, value: each(value) }));

function encodeJson(value: unknown): Doc {
  if (Array.isArray(value)) return value.map(encodeJson);
  if (isRecord(value)) return { entries: entries(value, encodeJson) };
  return value as Doc;
}

function encodeExpr(e: Record<string, unknown>): Doc {
  if ("lit" in e) return { lit: encodeJson(e.lit) };
  if ("ref" in e) return { ref: e.ref as string, path: (e.path as Doc[] | undefined) ?? null };
  if ("obj" in e) return { obj: entries(e.obj, (v) => encodeExpr(v as Record<string, unknown>)) };
  return { arr: (e.arr as Record<string, unknown>[]).map(encodeExpr) };
}

function encodePred(p: Record<string, unknown>): Doc {
  if (p.op === "exists") return { op: "exists", value: encodeExpr(p.value as Record<string, unknown>) };
  if (p.op === "and" || p.op === "or")
    return { op: p.op, args: (p.args as Record<string, unknown>[]).map(encodePred) };
  if (p.op === "not") return { op: "not", arg: encodePred(p.arg as Record<string, unknown>) };
  return {
    op: p.op as string,
    left: encodeExpr(p.left as Record<string, unknown>),
    right: encodeExpr(p.right as Record<string, unknown>),
  };
}

function encodeStep(s: Record<string, unknown>): Doc {
  const expr = (v: unknown) => encodeExpr(v as Record<string, unknown>);
  const steps = (v: unknown) => (v as Record<string, unknown>[]).map(encodeStep);
  switch (s.kind) {
    case "tool":
      return {
        ...(s as Record<string, Doc>),
        args: entries(s.args, expr),
        providers: (s.providers as string | undefined) ?? null,
      };
    case "qllm":
      return {
        ...(s as Record<string, Doc>),
        inputs: entries(s.inputs, expr),
        schema: JSON.stringify(s.schema),
      };
    case "display":
      return { kind: "display", value: expr(s.value), title: (s.title as string | undefined) ?? null };
    case "condition":
      return {
        kind: "condition",
        if: encodePred(s.if as Record<string, unknown>),
        // biome-ignore lint/suspicious/noThenProperty: DSL.md names a condition's branches `then` and `else`.
        then: steps(s.then),
        else: steps(s.else),
      };
    case "loop":
      return {
        kind: "loop",
        over: expr(s.over),
        as: s.as as string,
        body: steps(s.body),
        collect: s.collect === undefined ? null : expr(s.collect),
        out: (s.out as string | undefined) ?? null,
      };
    case "select":
      return {
        kind: "select",
        out: s.out as string,
        over: expr(s.over),
        where:
          s.where === undefined
            ? null
            : (s.where as Record<string, unknown>[]).map((w) => ({
                path: w.path as Doc,
                equals: expr(w.equals),
              })),
        by: (s.by as Doc | undefined) ?? null,
        pick: s.pick as string,
      };
    default:
      return s as Record<string, Doc>;
  }
}

/** A plan the DSL accepts, in the strict form (what a strict provider is asked to write). */
export function encodeStrictPlan(plan: unknown): Doc {
  const steps = (plan as { steps: Record<string, unknown>[] }).steps;
  return { steps: steps.map(encodeStep) };
}
