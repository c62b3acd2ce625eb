/**
 * The structural check of a plan ("required fields and types per kind; unknown kinds or fields
 * rejected"), derived from the DSL's zod schema through its JSON Schema (`planJsonSchema()`).
 *
 * Why not `PlanSchema.safeParse`: zod tries each union branch and builds issue objects for every
 * failed one, ~5 µs per expression, which alone is over the 5 ms budget for a 1,000-step plan.
 * Here the same schema is compiled once into plain predicates; messages are built only for a plan
 * that fails. Only the JSON Schema keywords zod emits for the DSL are understood; any other
 * keyword (or combination) makes compilation throw, which the validator turns into a refusal
 * (fail closed) rather than a constraint silently ignored.
 * Agreement with `PlanSchema.safeParse` is property-tested.
 */
import { EXPR_UNION_MESSAGE, sharedPlanJsonSchema } from "./dsl.ts";
import { isRecord } from "./json.ts";
import { formatPath, type PathSegment } from "./paths.ts";
import { MAX_ERRORS, type PlanError, type ValidationRule } from "./plan-errors.ts";

type Schema = Readonly<Record<string, unknown>>;

interface Checker {
  /** Accepts or not; allocates nothing. */
  test(v: unknown): boolean;
  /** Explains a value `test` refused, as errors at `at` (a path stack, pushed and popped). */
  explain(v: unknown, at: PathSegment[], out: PlanError[]): void;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeAccepts(type: unknown, v: unknown): boolean {
  const t = jsonType(v);
  return type === undefined || type === t || (type === "number" && t === "integer");
}

function push(out: PlanError[], at: readonly PathSegment[], rule: ValidationRule, message: string): void {
  if (out.length < MAX_ERRORS) out.push({ path: formatPath(at), rule, message });
}

function shortToken(v: unknown): string {
  if (typeof v !== "string") return jsonType(v);
  return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
}

function typeError(out: PlanError[], at: readonly PathSegment[], expected: string, v: unknown): void {
  push(out, at, "type", `expected ${expected}, got ${jsonType(v)}`);
}

function child(at: PathSegment[], seg: PathSegment, f: () => void): void {
  at.push(seg);
  f();
  at.pop();
}

class Compiler {
  private readonly defs: Readonly<Record<string, Schema>>;
  private readonly named = new Map<string, Checker>();

  constructor(root: Schema) {
    this.defs = isRecord(root.$defs) ? (root.$defs as Record<string, Schema>) : {};
  }

  /** Follows `$ref` in the raw schema (for branch metadata). */
  resolve(s: Schema): Schema {
    const ref = s.$ref;
    if (typeof ref !== "string") return s;
    const target = this.defs[ref.replace("#/$defs/", "")];
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return target;
  }

  /** A named definition, compiled once; recursion goes through a placeholder filled in afterwards. */
  def(name: string): Checker {
    const known = this.named.get(name);
    if (known) return known;
    const s = this.defs[name];
    if (!s) throw new Error(`unresolvable $ref ${name}`);
    const placeholder: Checker = { test: () => false, explain: () => {} };
    this.named.set(name, placeholder);
    Object.assign(placeholder, this.compile(s, name));
    return placeholder;
  }

  compile(s: Schema, name?: string): Checker {
    assertShape(s);
    if (typeof s.$ref === "string") return this.def(s.$ref.replace("#/$defs/", ""));
    if (Array.isArray(s.anyOf)) return this.union(s.anyOf as Schema[], name);
    switch (s.type) {
      case "object":
        return this.object(s);
      case "array":
        return this.array(s);
      case "string":
        return stringChecker(s);
      case "number":
      case "integer":
        return numberChecker(s, s.type);
      case "boolean":
      case "null": {
        const t = s.type;
        return { test: (v) => jsonType(v) === t, explain: (v, at, out) => typeError(out, at, t, v) };
      }
      case undefined:
        return { test: () => true, explain: () => {} };
      default:
        throw new Error(`unsupported type ${String(s.type)}`);
    }
  }

  object(s: Schema): Checker {
    const props = new Map<string, Checker>();
    if (isRecord(s.properties)) {
      for (const [k, p] of Object.entries(s.properties)) props.set(k, this.compile(p as Schema));
    }
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    const extra = s.additionalProperties;
    const closed = extra === false;
    const extraChecker = isRecord(extra) ? this.compile(extra) : undefined;
    return {
      test(v) {
        if (!isRecord(v)) return false;
        for (const r of required) if (!Object.hasOwn(v, r)) return false;
        // for-in, not Object.keys: this runs for every object of every plan and must not allocate.
        for (const k in v) {
          if (!Object.hasOwn(v, k)) continue;
          const c = props.get(k) ?? extraChecker;
          if (c ? !c.test(v[k]) : closed) return false;
        }
        return true;
      },
      explain(v, at, out) {
        if (!isRecord(v)) {
          typeError(out, at, "object", v);
          return;
        }
        for (const r of required) {
          if (!Object.hasOwn(v, r))
            child(at, r, () => push(out, at, "required", `missing required field "${r}"`));
        }
        for (const k of Object.keys(v)) {
          const c = props.get(k) ?? extraChecker;
          if (c && !c.test(v[k])) child(at, k, () => c.explain(v[k], at, out));
          else if (!c && closed) child(at, k, () => push(out, at, "unknown_field", `unknown field "${k}"`));
        }
      },
    };
  }

  array(s: Schema): Checker {
    const items = isRecord(s.items) ? this.compile(s.items) : undefined;
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    return {
      test(v) {
        if (!Array.isArray(v) || v.length < min) return false;
        if (items) for (const x of v) if (!items.test(x)) return false;
        return true;
      },
      explain(v, at, out) {
        if (!Array.isArray(v)) {
          typeError(out, at, "array", v);
          return;
        }
        if (v.length < min) push(out, at, "invalid_value", `needs at least ${min} item(s)`);
        if (!items) return;
        for (let i = 0; i < v.length; i++) {
          if (!items.test(v[i])) child(at, i, () => items.explain(v[i], at, out));
        }
      },
    };
  }

  /**
   * A union. Branches that share a required property with distinct constant values (`kind` of a
   * step, `op` of a predicate) are dispatched on it and report an unknown value as such; other
   * unions (Expr, path elements) are explained through the one branch the value evidently meant.
   */
  union(branches: readonly Schema[], name: string | undefined): Checker {
    const raws = branches.map((b) => this.resolve(b));
    const checkers = branches.map((b) => this.compile(b));
    const disc = discriminator(raws);
    const test = disc
      ? (v: unknown) => {
          if (!isRecord(v) || !Object.hasOwn(v, disc.prop)) return false;
          const i = disc.branch.get(v[disc.prop]);
          return i !== undefined && (checkers[i] as Checker).test(v);
        }
      : (v: unknown) => checkers.some((c) => c.test(v));
    const explain = (v: unknown, at: PathSegment[], out: PlanError[]): void => {
      if (isRecord(v) && Object.hasOwn(v, "op") && (name === "Expr" || disc?.prop === "kind")) {
        push(out, at, "predicate_misplaced", "a predicate appears only as the `if` of a condition");
        return;
      }
      if (disc) {
        if (!isRecord(v)) {
          typeError(out, at, "object", v);
          return;
        }
        if (!Object.hasOwn(v, disc.prop)) {
          child(at, disc.prop, () => push(out, at, "required", `missing required field "${disc.prop}"`));
          return;
        }
        const i = disc.branch.get(v[disc.prop]);
        if (i === undefined) {
          const rule =
            disc.prop === "kind" ? "unknown_kind" : disc.prop === "op" ? "unknown_op" : "invalid_value";
          const options = [...disc.branch.keys()].map(String).join(", ");
          child(at, disc.prop, () =>
            push(
              out,
              at,
              rule,
              `unknown ${disc.prop} ${shortToken(v[disc.prop])}; expected one of ${options}`,
            ),
          );
          return;
        }
        (checkers[i] as Checker).explain(v, at, out);
        return;
      }
      let candidates = raws.map((_, i) => i).filter((i) => typeAccepts((raws[i] as Schema).type, v));
      if (candidates.length > 1 && isRecord(v)) {
        candidates = candidates.filter((i) =>
          requiredOf(raws[i] as Schema).every((r) => Object.hasOwn(v, r)),
        );
      }
      const only = candidates.length === 1 ? checkers[candidates[0] as number] : undefined;
      if (only) {
        only.explain(v, at, out);
        return;
      }
      const expected = [...new Set(raws.map((r) => String(r.type)))].join(" or ");
      push(
        out,
        at,
        "type",
        name === "Expr" ? EXPR_UNION_MESSAGE : `expected ${expected}, got ${jsonType(v)}`,
      );
    };
    return { test, explain };
  }
}

function requiredOf(s: Schema): string[] {
  return Array.isArray(s.required) ? (s.required as string[]) : [];
}

/** A property every branch requires with its own constant value(s), mapped value → branch. */
function discriminator(raws: readonly Schema[]): { prop: string; branch: Map<unknown, number> } | undefined {
  const first = raws[0];
  if (!first || !isRecord(first.properties)) return undefined;
  for (const prop of requiredOf(first)) {
    const branch = new Map<unknown, number>();
    const ok = raws.every((raw, i) => {
      const p = isRecord(raw.properties) ? raw.properties[prop] : undefined;
      if (!isRecord(p) || !requiredOf(raw).includes(prop)) return false;
      const values: unknown[] = "const" in p ? [p.const] : Array.isArray(p.enum) ? p.enum : [];
      if (values.length === 0) return false;
      for (const value of values) {
        if (branch.has(value)) return false;
        branch.set(value, i);
      }
      return true;
    });
    if (ok) return { prop, branch };
  }
  return undefined;
}

function stringChecker(s: Schema): Checker {
  const minLength = typeof s.minLength === "number" ? s.minLength : 0;
  const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern) : undefined;
  const hasConst = "const" in s;
  const allowed = Array.isArray(s.enum) ? s.enum : undefined;
  return {
    test: (v) =>
      typeof v === "string" &&
      v.length >= minLength &&
      (!pattern || pattern.test(v)) &&
      (!hasConst || v === s.const) &&
      (!allowed || allowed.includes(v)),
    explain(v, at, out) {
      if (typeof v !== "string") {
        typeError(out, at, "string", v);
        return;
      }
      if (hasConst && v !== s.const) {
        const qllm = at[at.length - 1] === "type" && at[at.length - 2] === "schema";
        push(
          out,
          at,
          "invalid_value",
          qllm
            ? 'a q-llm schema must be object-rooted: {"type": "object", ...}'
            : `expected ${JSON.stringify(s.const)}`,
        );
      } else if (allowed && !allowed.includes(v)) {
        push(out, at, "invalid_value", `expected one of ${allowed.map(String).join(", ")}`);
      } else if (v.length < minLength) {
        push(out, at, "invalid_value", "must not be empty");
      } else if (pattern && !pattern.test(v)) {
        // Only bound names carry a pattern.
        if (v === "") push(out, at, "name_empty", "a name must not be empty");
        else {
          push(
            out,
            at,
            "name_invalid",
            `${shortToken(v)} is not a valid name: letters, digits and _, not starting with a digit, at most 64 characters`,
          );
        }
      }
    },
  };
}

function numberChecker(s: Schema, type: "number" | "integer"): Checker {
  const min = typeof s.minimum === "number" ? s.minimum : Number.NEGATIVE_INFINITY;
  const max = typeof s.maximum === "number" ? s.maximum : Number.POSITIVE_INFINITY;
  const ok = (v: unknown): v is number => typeof v === "number" && (type === "number" || Number.isInteger(v));
  return {
    test: (v) => ok(v) && v >= min && v <= max,
    explain(v, at, out) {
      if (!ok(v)) {
        typeError(out, at, type, v);
        return;
      }
      if (v < min) push(out, at, "invalid_value", `must be at least ${min}`);
      else if (v > max) push(out, at, "invalid_value", `must be at most ${max}`);
    },
  };
}

/** The keywords each kind of node may combine; anything else would be silently ignored, so it throws. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  ref: ["$ref", "description"],
  anyOf: ["anyOf", "description", "$defs"],
  object: ["type", "properties", "required", "additionalProperties", "description", "$defs"],
  array: ["type", "items", "minItems", "description"],
  string: ["type", "minLength", "pattern", "const", "enum", "description"],
  number: ["type", "minimum", "maximum", "description"],
  integer: ["type", "minimum", "maximum", "description"],
  boolean: ["type", "description"],
  null: ["type", "description"],
  any: ["description"],
};

function assertShape(s: Schema): void {
  const kind =
    typeof s.$ref === "string" ? "ref" : Array.isArray(s.anyOf) ? "anyOf" : String(s.type ?? "any");
  const allowed = ALLOWED[kind];
  for (const k of Object.keys(s)) {
    if (!allowed?.includes(k)) throw new Error(`unsupported JSON Schema: ${k} in a ${kind} node`);
  }
}

let planChecker: Checker | undefined;

/** The structural errors of a plan (empty when it has the DSL's shape). Call after the JSON guard. */
export function structuralErrors(input: unknown): PlanError[] {
  if (!planChecker) {
    const root = sharedPlanJsonSchema();
    planChecker = new Compiler(root).compile(root);
  }
  if (planChecker.test(input)) return [];
  const out: PlanError[] = [];
  planChecker.explain(input, [], out);
  if (out.length === 0)
    out.push({ path: "", rule: "type", message: "the plan does not have the DSL's shape" });
  return out;
}
