/**
 * Schema compatibility for binding an app's functionality to a catalog entry: is every value valid
 * under `sub` also valid under `sup`? Decided structurally over the JSON Schema keywords the catalog
 * and the demo apps use; anything else (combinators, references, conditionals) is refused with its
 * path rather than guessed. A `true` answer is a proof for the supported keywords; a refusal may be
 * conservative (two schemas that accept the same values but are written differently).
 */

export interface CompatProblem {
  /** JSON Pointer-like path into the schemas, e.g. `/properties/to`. */
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

/** Keywords that do not change which values are valid. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "examples",
  "default",
  "$comment",
  "$schema",
  "deprecated",
]);
const SUPPORTED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "format",
  "multipleOf",
]);

const TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"] as const;
type JsonType = (typeof TYPES)[number];

/** Every value `sub` accepts, `sup` accepts too; the problems say where that is not shown. */
export function subschemaProblems(sub: unknown, sup: unknown, path = ""): CompatProblem[] {
  const problems: CompatProblem[] = [];
  check(sub, sup, path, problems);
  return problems;
}

function check(sub: unknown, sup: unknown, path: string, out: CompatProblem[]): void {
  const at = path || "/";
  if (sup === true || annotationsOnly(sup)) return;
  if (sub === false) return;
  // The same schema (up to prose and key order) accepts the same values, whatever its keywords.
  if (canonical(sub) === canonical(sup)) return;
  if (sup === false) {
    out.push({ path: at, message: "a value may come where none is accepted" });
    return;
  }
  if (sub === true || annotationsOnly(sub)) {
    out.push({ path: at, message: "any value may come, but only some are accepted" });
    return;
  }
  if (!isObject(sub) || !isObject(sup)) {
    out.push({ path: at, message: "only object schemas (or true/false) can be compared" });
    return;
  }
  const before = out.length;
  for (const schema of [sub, sup]) {
    for (const key of Object.keys(schema)) {
      if (!SUPPORTED.has(key) && !ANNOTATIONS.has(key)) {
        out.push({ path: `${path}/${key}`, message: `"${key}" is a keyword binding cannot decide` });
      }
    }
  }
  if (out.length > before) return;

  const subValues = constValues(sub);
  if (subValues) {
    // A finite set: check each value against sup directly.
    for (const value of subValues) {
      if (!accepts(sup, value))
        out.push({ path: at, message: `${JSON.stringify(value)} may come, but is not accepted` });
    }
    return;
  }
  const supValues = constValues(sup);
  if (supValues) {
    out.push({ path: at, message: "only a fixed set of values is accepted, but others may come" });
    return;
  }

  const subTypes = typesOf(sub);
  const supTypes = typesOf(sup);
  for (const t of subTypes) {
    if (!supTypes.has(t) && !(t === "integer" && supTypes.has("number"))) {
      out.push({
        path: at,
        message: `a value of type ${t} may come, but only ${[...supTypes].join("|")} is accepted`,
      });
    }
  }
  const has = (t: JsonType) => subTypes.has(t);
  if (has("string")) {
    bound(sub, sup, "minLength", "min", path, out);
    bound(sub, sup, "maxLength", "max", path, out);
    same(sub, sup, "pattern", path, out);
    same(sub, sup, "format", path, out);
  }
  if (has("number") || has("integer")) {
    bound(sub, sup, "minimum", "min", path, out);
    bound(sub, sup, "maximum", "max", path, out);
    bound(sub, sup, "exclusiveMinimum", "min", path, out);
    bound(sub, sup, "exclusiveMaximum", "max", path, out);
    same(sub, sup, "multipleOf", path, out);
  }
  if (has("array")) {
    bound(sub, sup, "minItems", "min", path, out);
    bound(sub, sup, "maxItems", "max", path, out);
    check(sub.items ?? true, sup.items ?? true, `${path}/items`, out);
  }
  if (has("object")) objects(sub, sup, path, out);
}

function objects(sub: Schema, sup: Schema, path: string, out: CompatProblem[]): void {
  const subProps = isObject(sub.properties) ? sub.properties : {};
  const supProps = isObject(sup.properties) ? sup.properties : {};
  const subRequired = new Set(stringList(sub.required));
  for (const name of stringList(sup.required)) {
    if (!subRequired.has(name)) {
      out.push({ path: `${path}/required`, message: `"${name}" is required, but may be missing` });
    }
  }
  const subExtra = sub.additionalProperties ?? true;
  const supExtra = sup.additionalProperties ?? true;
  for (const [name, schema] of Object.entries(subProps)) {
    const target = Object.hasOwn(supProps, name) ? supProps[name] : supExtra;
    check(schema, target, `${path}/properties/${name}`, out);
  }
  for (const [name, schema] of Object.entries(supProps)) {
    // A property sub does not name arrives (if at all) under sub's additionalProperties.
    if (!Object.hasOwn(subProps, name)) check(subExtra, schema, `${path}/properties/${name}`, out);
  }
  // Names neither lists: sub's rule for them must fit sup's.
  check(subExtra, supExtra, `${path}/additionalProperties`, out);
}

/** `enum`/`const` as a value list (both: the values in both), or null when the schema is not a finite set. */
function constValues(s: Schema): unknown[] | null {
  const listed = Array.isArray(s.enum) ? s.enum : null;
  if (!("const" in s)) return listed;
  const fixed = JSON.stringify(s.const);
  return listed && !listed.some((v) => JSON.stringify(v) === fixed) ? [] : [s.const];
}

function typesOf(s: Schema): Set<JsonType> {
  if (s.type === undefined) return new Set(TYPES.filter((t) => t !== "integer"));
  const list = Array.isArray(s.type) ? s.type : [s.type];
  return new Set(list.filter((t): t is JsonType => (TYPES as readonly string[]).includes(String(t))));
}

/** sub's bound must be at least as tight as sup's. */
function bound(
  sub: Schema,
  sup: Schema,
  key: string,
  kind: "min" | "max",
  path: string,
  out: CompatProblem[],
): void {
  const need = sup[key];
  if (typeof need !== "number") return;
  const have = sub[key];
  const ok = typeof have === "number" && (kind === "min" ? have >= need : have <= need);
  if (!ok) out.push({ path: `${path}/${key}`, message: `${key} ${need} is required, but not guaranteed` });
}

function same(sub: Schema, sup: Schema, key: string, path: string, out: CompatProblem[]): void {
  if (sup[key] === undefined || sub[key] === sup[key]) return;
  out.push({
    path: `${path}/${key}`,
    message: `${key} ${JSON.stringify(sup[key])} is required, but not guaranteed`,
  });
}

/** Whether one concrete value satisfies a schema of the supported keywords (for enum and const). */
function accepts(schema: unknown, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false || !isObject(schema)) return false;
  // Every keyword must hold at once: `const`, `enum`, `type` and the bounds.
  const same = (v: unknown) => JSON.stringify(v) === JSON.stringify(value);
  if ("const" in schema && !same(schema.const)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some(same)) return false;
  const types = typesOf(schema);
  const t = typeOfValue(value);
  if (schema.type !== undefined && !types.has(t) && !(t === "integer" && types.has("number"))) return false;
  if (typeof value === "string") {
    // Lengths in code points, as JSON Schema (and the validator) count them.
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) return false;
    if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) return false;
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return false;
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return false;
    if (typeof schema.multipleOf === "number" && !Number.isInteger(value / schema.multipleOf)) return false;
  }
  // A `format` this check does not implement cannot be shown to hold: refuse rather than guess.
  if (schema.format !== undefined) return false;
  // A composite constant passes only a schema that fixes it by const/enum; its inner keywords are not checked here.
  return (t !== "object" && t !== "array") || "const" in schema || Array.isArray(schema.enum);
}

function typeOfValue(v: unknown): JsonType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "object") return "object";
  return typeof v === "boolean" ? "boolean" : "string";
}

/** Keywords whose value is a map of names to subschemas, or a list of subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["oneOf", "anyOf", "allOf", "prefixItems"]);
/** Keywords whose value is one subschema. */
const SCHEMA_ONES = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains"]);

/** A schema as text without its annotations, keys sorted: equal text, equal meaning. */
function canonical(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (!isObject(x)) return x;
    return Object.fromEntries(
      Object.keys(x)
        .sort()
        .map((k) => [k, sorted(x[k])]),
    );
  };
  return JSON.stringify(sorted(withoutAnnotations(v)));
}

/**
 * A schema without its annotations (descriptions, titles, examples, defaults, comments): the same
 * values valid, none of its author's prose. Annotations are dropped only where a keyword stands (a
 * property named `title` stays).
 */
export function withoutAnnotations(x: unknown): unknown {
  if (!isObject(x)) return x;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    if (ANNOTATIONS.has(k)) continue;
    const value = x[k];
    if (SCHEMA_MAPS.has(k) && isObject(value)) {
      out[k] = Object.fromEntries(Object.keys(value).map((name) => [name, withoutAnnotations(value[name])]));
    } else if (SCHEMA_LISTS.has(k) && Array.isArray(value)) out[k] = value.map(withoutAnnotations);
    else if (SCHEMA_ONES.has(k)) out[k] = withoutAnnotations(value);
    else out[k] = value;
  }
  return out;
}

function annotationsOnly(v: unknown): boolean {
  return isObject(v) && Object.keys(v).every((k) => ANNOTATIONS.has(k));
}

function isObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
