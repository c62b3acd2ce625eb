/**
 * The plan DSL (DSL.md) as one zod schema: the planner's JSON Schema, the validator's structural
 * check and the TypeScript types all come from here.
 */
import * as z from "zod";
import type { JsonValue } from "./json.ts";

export type { JsonValue };

export type PathElement = string | number;

/* The types are readonly: a plan is checked once and must run exactly as checked. */

export type Expr =
  | { readonly lit: JsonValue }
  | { readonly ref: string; readonly path?: readonly PathElement[] }
  | { readonly obj: Readonly<Record<string, Expr>> }
  | { readonly arr: readonly Expr[] };

export const COMPARE_OPS = ["eq", "ne", "lt", "le", "gt", "ge", "contains"] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

export type Pred =
  | { readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly op: "exists"; readonly value: Expr }
  | { readonly op: "and" | "or"; readonly args: readonly Pred[] }
  | { readonly op: "not"; readonly arg: Pred };

export interface RetrieveStep {
  readonly kind: "retrieve";
  readonly out: string;
  readonly artifact: string;
}
export interface ToolStep {
  readonly kind: "tool";
  readonly out: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, Expr>>;
  readonly intent: string;
  readonly semantics: string;
  /**
   * `"all"`: the step runs once on every app serving its catalog entry (a comparison), and its
   * result is `{<app>: <answer>}`. Catalog mode and reversible entries only (validate.ts).
   */
  readonly providers?: "all";
}
export interface QllmStep {
  readonly kind: "qllm";
  readonly out: string;
  readonly inputs: Readonly<Record<string, Expr>>;
  readonly prompt: string;
  readonly schema: { readonly type: "object"; readonly [key: string]: unknown };
  readonly intent: string;
  readonly semantics: string;
}
export interface DisplayStep {
  readonly kind: "display";
  readonly value: Expr;
  readonly title?: string;
}
export interface ConditionStep {
  readonly kind: "condition";
  readonly if: Pred;
  readonly then: readonly Step[];
  readonly else: readonly Step[];
}
export interface LoopStep {
  readonly kind: "loop";
  readonly over: Expr;
  readonly as: string;
  readonly body: readonly Step[];
  readonly collect?: Expr;
  readonly out?: string;
}
/**
 * How a `select` step orders what it keeps: `min`/`max` give the one item whose `by` field is the
 * least/greatest (ties: the first in list order), `asc`/`desc` the kept items sorted by it (stable),
 * `all` the kept items in list order (a filter only, so no `by`).
 */
export const SELECT_PICKS = ["min", "max", "asc", "desc", "all"] as const;
export type SelectPick = (typeof SELECT_PICKS)[number];

/** Keeps an item iff its field at `path` is JSON-equal to the value of `equals` (a city the user named). */
export interface SelectWhere {
  readonly path: readonly PathElement[];
  readonly equals: Expr;
}

/**
 * A comparison with no reader (DSL.md, "Selecting without a reader"): filters and orders the items
 * of `over` by typed fields, deterministically, so no model reads an item's free text to choose
 * (a provider's note cannot steer the pick). `over` is an array, or an object read as its entries
 * `{key, value}` in key order (a `providers: "all"` result: `key` is the app).
 */
export interface SelectStep {
  readonly kind: "select";
  readonly out: string;
  readonly over: Expr;
  readonly where?: readonly SelectWhere[];
  readonly by?: readonly PathElement[];
  readonly pick: SelectPick;
}
export type Step = RetrieveStep | ToolStep | QllmStep | DisplayStep | ConditionStep | LoopStep | SelectStep;
export interface Plan {
  readonly steps: readonly Step[];
}

/** Names bound by `out` and `as`: identifiers, so they are safe as keys anywhere downstream. */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Names a plan may not bind: DSL words, values, and the keys that reach into JS prototypes. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "lit",
  "ref",
  "path",
  "obj",
  "arr",
  "op",
  "steps",
  "kind",
  "out",
  "as",
  "if",
  "then",
  "else",
  "over",
  "body",
  "collect",
  "args",
  "inputs",
  "true",
  "false",
  "null",
  "undefined",
  "query",
  "user",
  "pc",
  "__proto__",
  "constructor",
  "prototype",
]); // prettier-ignore

/** Messages of the unions, recognised by the issue mapper to report the right rule. */
export const EXPR_UNION_MESSAGE =
  "expected an expression: exactly one of {lit}, {ref, path?}, {obj} or {arr}";
export const JSON_UNION_MESSAGE = "expected a JSON value";

/** ids and descriptions for the planner's JSON Schema ($defs names). */
const registry = z.registry<{ id?: string; description?: string }>();

const Name = z.string().regex(NAME_PATTERN);
const NonEmpty = z.string().min(1);

export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union(
    [
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(JsonValueSchema),
      z.record(z.string(), JsonValueSchema),
    ],
    { error: JSON_UNION_MESSAGE },
  ),
);
registry.add(JsonValueSchema, { id: "JsonValue" });

export const ExprSchema: z.ZodType<Expr> = z.union(
  [
    z.strictObject({ lit: JsonValueSchema }),
    z.strictObject({ ref: Name, path: z.array(z.union([z.string(), z.int().min(0)])).optional() }),
    z.strictObject({
      get obj(): z.ZodRecord<z.ZodString, z.ZodType<Expr>> {
        return z.record(z.string(), ExprSchema);
      },
    }),
    z.strictObject({
      get arr(): z.ZodArray<z.ZodType<Expr>> {
        return z.array(ExprSchema);
      },
    }),
  ],
  { error: EXPR_UNION_MESSAGE },
);
registry.add(ExprSchema, {
  id: "Expr",
  description:
    "A literal {lit}, a reference {ref} to a bound name (optionally projected by path), or a constructed object {obj} / array {arr}.",
});

export const PredSchema: z.ZodType<Pred> = z.discriminatedUnion("op", [
  z.strictObject({ op: z.enum(COMPARE_OPS), left: ExprSchema, right: ExprSchema }),
  z.strictObject({ op: z.literal("exists"), value: ExprSchema }),
  z.strictObject({
    op: z.enum(["and", "or"]),
    get args(): z.ZodArray<z.ZodType<Pred>> {
      return z.array(PredSchema).min(1);
    },
  }),
  z.strictObject({
    op: z.literal("not"),
    get arg(): z.ZodType<Pred> {
      return PredSchema;
    },
  }),
]);
registry.add(PredSchema, { id: "Predicate", description: "A condition; allowed only in condition.if." });

/** A literal path into a value, as a projection's: field names and list indexes the planner wrote. */
const PathSchema = z.array(z.union([z.string(), z.int().min(0)]));

const stepList = (): z.ZodArray<z.ZodType<Step>> => z.array(StepSchema);

export const StepSchema: z.ZodType<Step> = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("retrieve"), out: Name, artifact: NonEmpty }),
  z.strictObject({
    kind: z.literal("tool"),
    out: Name,
    tool: NonEmpty,
    args: z.record(z.string(), ExprSchema),
    intent: NonEmpty,
    semantics: NonEmpty,
    providers: z.literal("all").optional(),
  }),
  z.strictObject({
    kind: z.literal("qllm"),
    out: Name,
    inputs: z.record(z.string(), ExprSchema),
    prompt: NonEmpty,
    schema: z.looseObject({ type: z.literal("object") }),
    intent: NonEmpty,
    semantics: NonEmpty,
  }),
  z.strictObject({ kind: z.literal("display"), value: ExprSchema, title: z.string().optional() }),
  z.strictObject({
    kind: z.literal("condition"),
    if: PredSchema,
    // biome-ignore lint/suspicious/noThenProperty: DSL.md names a condition's branches `then` and `else`.
    get then() {
      return stepList();
    },
    get else() {
      return stepList();
    },
  }),
  z.strictObject({
    kind: z.literal("loop"),
    over: ExprSchema,
    as: Name,
    get body() {
      return stepList();
    },
    collect: ExprSchema.optional(),
    out: Name.optional(),
  }),
  z.strictObject({
    kind: z.literal("select"),
    out: Name,
    over: ExprSchema,
    where: z.array(z.strictObject({ path: PathSchema, equals: ExprSchema })).optional(),
    by: PathSchema.optional(),
    pick: z.enum(SELECT_PICKS),
  }),
]);
registry.add(StepSchema, { id: "Step" });

export const PlanSchema: z.ZodType<Plan> = z.strictObject({ steps: z.array(StepSchema) });

let cachedJsonSchema: Readonly<Record<string, unknown>> | undefined;

/** The derived JSON Schema, computed once and shared read-only (the structural check compiles it). */
export function sharedPlanJsonSchema(): Readonly<Record<string, unknown>> {
  if (!cachedJsonSchema) {
    const raw = z.toJSONSchema(PlanSchema, { metadata: registry, target: "draft-2020-12" });
    cachedJsonSchema = openAiCompatible(raw) as Record<string, unknown>;
  }
  return cachedJsonSchema;
}

/**
 * The planner's JSON Schema, derived from PlanSchema: an object root, recursion through `$defs`
 * (Step, Expr, Predicate, JsonValue), `additionalProperties: false` on every fixed-shape object.
 * A fresh copy per call: JSON Schema libraries annotate the schemas they are given.
 *
 * Sent as a hint (`strict: false`) to providers without strict decoding: `args`, `inputs`, `obj`,
 * `lit` and the q-llm `schema` are open maps, which strict mode cannot express (strict providers get
 * strict-plan.ts's form). The validator is what enforces the DSL; the schema guides the model.
 * Keywords OpenAI rejects are rewritten: `oneOf` (the discriminated unions, whose
 * branches are disjoint) becomes `anyOf`; `propertyNames` (always `string` here) and `$schema` are dropped.
 */
export function planJsonSchema(): Record<string, unknown> {
  return structuredClone(sharedPlanJsonSchema()) as Record<string, unknown>;
}

function openAiCompatible(node: unknown): unknown {
  if (Array.isArray(node)) return Object.freeze(node.map(openAiCompatible));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "propertyNames") continue;
    out[key === "oneOf" ? "anyOf" : key] = openAiCompatible(value);
  }
  return Object.freeze(out);
}
