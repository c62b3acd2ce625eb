/**
 * The plan in a form strict structured output can express (OpenAI `strict: true`, guided decoding):
 * every object closed and every property required. Three DSL shapes are open and are rewritten:
 * maps (`args`, `inputs`, `obj`) become arrays of `{name, value}`; a literal object becomes
 * `{entries: [{name, value}]}` (arrays and scalars stay as they are); a q-llm step's `schema` is
 * its JSON text. Optional fields are required and nullable, null meaning absent.
 *
 * `decodeStrictPlan` turns an answer in this form back into the DSL; it checks only what the
 * rewriting needs, and the validator stays the one authority on the plan it returns. (The other
 * direction, used only to test the round trip, is test/policy/strict-plan-encode.ts.)
 */
import { COMPARE_OPS, NAME_PATTERN, SELECT_PICKS } from "./dsl.ts";
import { deepFreeze, isRecord } from "./json.ts";
import { jsonShapeError } from "./json-guard.ts";
import { childPath } from "./paths.ts";
import type { PlanError } from "./plan-errors.ts";

type Schema = Record<string, unknown>;

const closed = (properties: Record<string, unknown>, description?: string): Schema => ({
  type: "object",
  ...(description && { description }),
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
const list = (items: unknown, extra: Schema = {}) => ({ type: "array", items, ...extra });
const nullable = (schema: unknown) => ({ anyOf: [schema, { type: "null" }] });
const kind = (k: string) => ({ type: "string", enum: [k] });
const NAME = { type: "string", pattern: NAME_PATTERN.source };
const TEXT = { type: "string" };
const fields = (description: string) => ({ ...list(ref("Field")), description });
const PATH = list({ anyOf: [TEXT, { type: "integer", minimum: 0 }] });

/* Each union lists a branch without recursion first: a generator (or a grammar) can always stop. */
const STRICT_PLAN_SCHEMA: Schema = {
  ...closed({ steps: list(ref("Step")) }),
  $defs: {
    Json: {
      description: "A JSON value; an object is written {entries: [{name, value}]}.",
      anyOf: [
        { type: "string" },
        { type: "number" },
        { type: "boolean" },
        { type: "null" },
        list(ref("Json")),
        closed({ entries: list(closed({ name: TEXT, value: ref("Json") })) }),
      ],
    },
    Field: closed({ name: TEXT, value: ref("Expr") }),
    Expr: {
      description:
        "A literal {lit}, a reference {ref, path} to a bound name (path null for the whole value), or a constructed object {obj: [{name, value}]} / array {arr}.",
      anyOf: [
        closed({ lit: ref("Json") }),
        closed({ ref: NAME, path: nullable(PATH) }),
        closed({ obj: fields("the object's fields, one {name, value} each") }),
        closed({ arr: list(ref("Expr")) }),
      ],
    },
    Predicate: {
      description: "A condition; allowed only in condition.if.",
      anyOf: [
        closed({ op: { type: "string", enum: [...COMPARE_OPS] }, left: ref("Expr"), right: ref("Expr") }),
        closed({ op: kind("exists"), value: ref("Expr") }),
        closed({
          op: { type: "string", enum: ["and", "or"] },
          args: list(ref("Predicate"), { minItems: 1 }),
        }),
        closed({ op: kind("not"), arg: ref("Predicate") }),
      ],
    },
    Step: {
      anyOf: [
        closed({ kind: kind("retrieve"), out: NAME, artifact: TEXT }),
        closed({ kind: kind("display"), value: ref("Expr"), title: nullable(TEXT) }),
        closed({
          kind: kind("tool"),
          out: NAME,
          tool: TEXT,
          args: fields("the call's arguments, one {name, value} each"),
          intent: TEXT,
          semantics: TEXT,
          providers: {
            ...nullable(kind("all")),
            description: '"all": run on every app serving the entry; the result maps each app to its answer',
          },
        }),
        closed({
          kind: kind("qllm"),
          out: NAME,
          inputs: fields("the step's inputs, one {name, value} each"),
          prompt: TEXT,
          schema: {
            type: "string",
            description: "the answer's JSON Schema (an object schema), as JSON text",
          },
          intent: TEXT,
          semantics: TEXT,
        }),
        closed({
          kind: kind("condition"),
          if: ref("Predicate"),
          // biome-ignore lint/suspicious/noThenProperty: DSL.md names a condition's branches `then` and `else`.
          then: list(ref("Step")),
          else: list(ref("Step")),
        }),
        closed({
          kind: kind("loop"),
          over: ref("Expr"),
          as: NAME,
          body: list(ref("Step")),
          collect: nullable(ref("Expr")),
          out: nullable(NAME),
        }),
        closed({
          kind: kind("select"),
          out: NAME,
          over: ref("Expr"),
          where: {
            ...nullable(list(closed({ path: PATH, equals: ref("Expr") }))),
            description: "keep the items whose field at path equals the value; null keeps all",
          },
          by: {
            ...nullable(PATH),
            description: 'the path of the field compared in each item; null only with pick "all"',
          },
          pick: { type: "string", enum: [...SELECT_PICKS] },
        }),
      ],
    },
  },
};

const frozen = deepFreeze(STRICT_PLAN_SCHEMA);

/** The strict plan schema, a fresh copy (JSON Schema libraries annotate what they are given). */
export function strictPlanJsonSchema(): Schema {
  return structuredClone(frozen) as Schema;
}

/* ---- strict form → DSL (total: errors for any input, never a throw) ---- */

export type StrictDecode =
  | { ok: true; plan: unknown }
  | { ok: false; code: "invalid_plan"; message: string; details: PlanError[] };

const undecodable = (details: PlanError[]): StrictDecode => ({
  ok: false,
  code: "invalid_plan",
  message: "the strict plan does not decode",
  details,
});

class Decoder {
  readonly errors: PlanError[] = [];

  fail(path: string, message: string): undefined {
    if (this.errors.length < 20) this.errors.push({ path, rule: "invalid_value", message });
    return undefined;
  }

  /** `[{name, value}]` → `{name: value}`; a repeated name or `__proto__` is an error, never silently lost. */
  map(v: unknown, at: string, each: (value: unknown, at: string) => unknown): unknown {
    if (!Array.isArray(v)) return v; // not the strict form: the validator says what is wrong
    const out: Record<string, unknown> = {};
    for (const [i, item] of v.entries()) {
      const here = childPath(at, i);
      if (!isRecord(item) || typeof item.name !== "string" || !("value" in item))
        return this.fail(here, "expected {name, value}");
      // Assigned, "__proto__" would set the map's prototype and the entry would vanish.
      if (item.name === "__proto__") return this.fail(here, 'the name "__proto__" is not allowed');
      if (Object.hasOwn(out, item.name)) return this.fail(here, `the name "${item.name}" is given twice`);
      out[item.name] = each(item.value, childPath(here, "value"));
    }
    return out;
  }

  json(v: unknown, at: string): unknown {
    if (Array.isArray(v)) return v.map((x, i) => this.json(x, childPath(at, i)));
    if (!isRecord(v)) return v;
    const keys = Object.keys(v);
    if (keys.length !== 1 || keys[0] !== "entries" || !Array.isArray(v.entries))
      return this.fail(at, "a literal object is written {entries: [{name, value}]}");
    return this.map(v.entries, childPath(at, "entries"), (x, here) => this.json(x, here));
  }

  expr(v: unknown, at: string): unknown {
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = { ...v };
    if ("lit" in v) out.lit = this.json(v.lit, childPath(at, "lit"));
    if ("path" in v && v.path === null) delete out.path;
    if ("obj" in v) out.obj = this.map(v.obj, childPath(at, "obj"), (x, here) => this.expr(x, here));
    if (Array.isArray(v.arr)) out.arr = v.arr.map((x, i) => this.expr(x, childPath(childPath(at, "arr"), i)));
    return out;
  }

  pred(v: unknown, at: string): unknown {
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = { ...v };
    for (const side of ["left", "right", "value"] as const)
      if (side in v) out[side] = this.expr(v[side], childPath(at, side));
    if (Array.isArray(v.args))
      out.args = v.args.map((p, i) => this.pred(p, childPath(childPath(at, "args"), i)));
    if ("arg" in v) out.arg = this.pred(v.arg, childPath(at, "arg"));
    return out;
  }

  steps(v: unknown, at: string): unknown {
    return Array.isArray(v) ? v.map((s, i) => this.step(s, childPath(at, i))) : v;
  }

  step(v: unknown, at: string): unknown {
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = { ...v };
    const drop = (key: string) => {
      if (v[key] === null) delete out[key];
    };
    const expr = (key: string) => {
      if (key in v && v[key] !== null) out[key] = this.expr(v[key], childPath(at, key));
    };
    const map = (key: string) => {
      if (key in v) out[key] = this.map(v[key], childPath(at, key), (x, here) => this.expr(x, here));
    };
    switch (v.kind) {
      case "tool":
        map("args");
        drop("providers");
        break;
      case "qllm":
        map("inputs");
        if (typeof v.schema === "string") out.schema = this.schemaText(v.schema, childPath(at, "schema"));
        break;
      case "display":
        expr("value");
        drop("title");
        break;
      case "condition":
        if ("if" in v) out.if = this.pred(v.if, childPath(at, "if"));
        for (const branch of ["then", "else"])
          if (branch in v) out[branch] = this.steps(v[branch], childPath(at, branch));
        break;
      case "loop":
        expr("over");
        expr("collect");
        drop("collect");
        drop("out");
        if ("body" in v) out.body = this.steps(v.body, childPath(at, "body"));
        break;
      case "select":
        expr("over");
        drop("where");
        drop("by");
        if (Array.isArray(v.where))
          out.where = v.where.map((w, i) => {
            const here = childPath(childPath(at, "where"), i);
            return isRecord(w) && "equals" in w
              ? { ...w, equals: this.expr(w.equals, childPath(here, "equals")) }
              : w;
          });
        break;
    }
    return out;
  }

  schemaText(text: string, at: string): unknown {
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch {
      return this.fail(at, "a q-llm schema is its JSON Schema as JSON text, and this is not JSON");
    }
    const shape = jsonShapeError(schema);
    return shape ? this.fail(at, shape.message) : schema;
  }
}

/** A strict-form answer back in the DSL, for the validator; only the rewriting's own errors here. */
export function decodeStrictPlan(doc: unknown): StrictDecode {
  const shape = jsonShapeError(doc); // bounded and plain before any recursion here
  if (shape) return undecodable([shape]);
  if (!isRecord(doc)) return { ok: true, plan: doc };
  const decoder = new Decoder();
  const plan = { ...doc, ...("steps" in doc && { steps: decoder.steps(doc.steps, "steps") }) };
  return decoder.errors.length ? undecodable(decoder.errors) : { ok: true, plan };
}
