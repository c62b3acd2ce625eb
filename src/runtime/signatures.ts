import type { PlannerTool } from "./snapshot.ts";

/**
 * What the planner reads of a callable: a typed signature instead of its raw JSON Schemas, e.g.
 *   mail.send(to: string(email), subject: string, body: string) -> {id: string, sent: true} [irreversible] — Send an email.
 * A plan names tools, argument names and output paths, so every property name, type and
 * requiredness is kept, with the constraints a literal must meet (values, formats, patterns, ranges)
 * and each property's title and description where the schema's author wrote them. Examples and the
 * schemas' own top-level prose are dropped. Total: any JSON renders, unknown shapes as `any`.
 */

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** Past this depth a schema renders as `…`: enough for real request shapes, bounded for hostile ones. */
const MAX_DEPTH = 8;
/**
 * Schema nodes one signature may render, every property, alternative and part counted: $refs can
 * fan out exponentially, the prompt must not. And a signature never exceeds MAX_SIGNATURE characters.
 */
const MAX_NODES = 1000;
const MAX_SIGNATURE = 4000;
const MAX_KEY = 64;
/** Long patterns, notes and values are cut: they are hints, the validator still checks the full schema. */
const MAX_PATTERN = 80;
const MAX_NOTE = 200;
const MAX_VALUE = 60;
const MAX_ENUM = 30;

interface Ctx {
  root: Schema;
  /** $refs being expanded (a recursive schema names its definition instead of looping). */
  expanding: ReadonlySet<string>;
  depth: number;
  /** A result: a plan only reads it, so patterns, lengths and ranges are left out (values and formats stay). */
  output: boolean;
  /** Nodes left to render, shared by the whole signature. */
  budget: { left: number };
}

/** At most `max` UTF-16 units, never splitting a surrogate pair, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end--;
  return `${text.slice(0, end)}…`;
}
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const value = (v: unknown) => clip(JSON.stringify(v) ?? "null", MAX_VALUE);
const key = (k: string) => clip(/^[A-Za-z_$][\w$-]*$/.test(k) ? k : JSON.stringify(k), MAX_KEY);
/** A union or intersection (a `|` or `&` outside brackets and strings) needs parentheses before `[]`. */
function atom(t: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if ("{([".includes(c)) depth++;
    else if ("})]".includes(c)) depth--;
    else if (depth === 0 && (c === "|" || c === "&")) return `(${t})`;
  }
  return t;
}

function resolve(ref: string, root: Schema): unknown {
  if (!ref.startsWith("#")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at = isSchema(at) ? at[part] : undefined;
  }
  return at;
}

/**
 * allOf parts folded into one object: their properties and required joined. Each $ref is folded
 * once in the whole fold (siblings too), and properties are gathered into one object, so a hostile
 * `allOf` of many parts costs its size, not its size squared.
 */
function merged(schema: Schema, ctx: Ctx, seen: Set<string> = new Set()): Schema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  const out: Schema = { ...rest };
  const properties: Schema = isSchema(rest.properties) ? { ...rest.properties } : {};
  const required = new Set<string>(Array.isArray(rest.required) ? (rest.required as string[]) : []);
  for (const raw of allOf as unknown[]) {
    const ref = isSchema(raw) && typeof raw.$ref === "string" ? raw.$ref : null;
    if ((ref && seen.has(ref)) || --ctx.budget.left < 0) continue;
    if (ref) seen.add(ref);
    const part = ref ? resolve(ref, ctx.root) : raw;
    if (!isSchema(part)) continue;
    const sub = merged(part, ctx, seen);
    for (const [k, v] of Object.entries(sub)) {
      if (k === "properties" && isSchema(v)) Object.assign(properties, v);
      else if (k === "required" && Array.isArray(v)) for (const r of v) required.add(String(r));
      else if (!(k in out)) out[k] = v;
    }
  }
  if (Object.keys(properties).length) out.properties = properties;
  if (required.size) out.required = [...required];
  return out;
}

function range(s: Schema, lo: string, hi: string, exLo?: string, exHi?: string): string[] {
  const n = (k: string | undefined) => (k && typeof s[k] === "number" ? (s[k] as number) : undefined);
  const [min, max, xmin, xmax] = [n(lo), n(hi), n(exLo), n(exHi)];
  if (min !== undefined && max !== undefined && xmin === undefined && xmax === undefined)
    return [`${min}..${max}`];
  return [
    ...(min !== undefined ? [`>=${min}`] : []),
    ...(xmin !== undefined ? [`>${xmin}`] : []),
    ...(max !== undefined ? [`<=${max}`] : []),
    ...(xmax !== undefined ? [`<${xmax}`] : []),
  ];
}

const withConstraints = (base: string, parts: string[]) =>
  parts.length ? `${base}(${parts.join(", ")})` : base;

function scalar(type: string, s: Schema, ctx: Ctx): string {
  switch (type) {
    case "string": {
      const parts: string[] = [];
      if (typeof s.format === "string") parts.push(clip(s.format, MAX_VALUE));
      if (ctx.output) return withConstraints("string", parts);
      if (typeof s.pattern === "string") parts.push(`/${clip(s.pattern, MAX_PATTERN)}/`);
      // A minimum length of 1 only says "not empty", which no plan writer needs told.
      const len = range(
        { ...s, minLength: (s.minLength as number) > 1 ? s.minLength : undefined },
        "minLength",
        "maxLength",
      );
      parts.push(...len.map((r) => `len ${r}`));
      return withConstraints("string", parts);
    }
    case "integer":
    case "number":
      return withConstraints(
        type === "integer" ? "int" : "number",
        ctx.output ? [] : range(s, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
      );
    case "array": {
      const items = s.items === undefined ? "any" : typeOf(s.items, { ...ctx, depth: ctx.depth + 1 });
      const counts = ctx.output ? [] : range(s, "minItems", "maxItems").map((r) => `${r} items`);
      return withConstraints(`${atom(items)}[]`, counts);
    }
    case "object":
      return objectType(s, ctx);
    case "boolean":
    case "null":
      return type;
    default:
      return "any";
  }
}

/** `{a: T, b?: U /* note *\/}`; an object's alternatives of required names as `; needs one of: a | b`. */
function objectType(s: Schema, ctx: Ctx): string {
  const fields = objectFields(s, ctx);
  if (fields === null) return "object";
  return `{${fields}}`;
}

/** A property's title and description, as its author wrote them: ` /* Title: description *\/`. */
function noteOf(p: unknown): string {
  if (!isSchema(p)) return "";
  const text = (v: unknown, max: number) => (typeof v === "string" && v.trim() ? clip(oneLine(v), max) : "");
  const [title, about] = [text(p.title, MAX_NOTE / 2), text(p.description, MAX_NOTE)];
  const note = title && about && title !== about ? `${title}: ${about}` : about || title;
  return note ? ` /* ${note.replaceAll("*/", "* /")} */` : "";
}

/** The inside of an object's braces (a signature's parentheses); null for an open object with no properties. */
function objectFields(s: Schema, ctx: Ctx): string | null {
  const props = isSchema(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r) => typeof r === "string") : []);
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const parts: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    // Every property costs a node, boolean schemas too: a wide object cannot expand for free.
    if (--ctx.budget.left < 0) {
      parts.push("…");
      break;
    }
    const optional = !required.has(name);
    const fallback = optional && isSchema(p) && p.default !== undefined ? ` = ${value(p.default)}` : "";
    parts.push(`${key(name)}${optional ? "?" : ""}: ${typeOf(p, inner)}${fallback}${noteOf(p)}`);
  }
  const extra = s.additionalProperties;
  if (isSchema(extra)) parts.push(`[key]: ${typeOf(extra, inner)}`);
  const needs = requiredAlternatives(s);
  if (!parts.length && extra !== false && !needs) return null;
  return parts.join(", ") + (needs ? `; needs one of: ${needs}` : "");
}

/** `oneOf`/`anyOf` whose alternatives only require names (e.g. channel or user): rendered as a note. */
function requiredAlternatives(s: Schema): string | null {
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  if (!alts?.length) return null;
  const names = alts.map((a) =>
    isSchema(a) && Object.keys(a).every((k) => k === "required") && Array.isArray(a.required)
      ? a.required.join(" + ")
      : null,
  );
  return names.every((n) => n !== null) ? names.join(" | ") : null;
}

/** A schema as a compact type: `string(email)`, `int(1..100)`, `"a"|"b"`, `{a: T, b?: U}`, `T[]`. */
function typeOf(schema: unknown, ctx: Ctx): string {
  if (schema === false) return "never";
  if (!isSchema(schema)) return "any";
  if (ctx.depth > MAX_DEPTH || --ctx.budget.left < 0) return "…";
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    if (ctx.expanding.has(ref)) return ref.slice(ref.lastIndexOf("/") + 1) || "…";
    const target = resolve(ref, ctx.root);
    return typeOf(target, { ...ctx, expanding: new Set([...ctx.expanding, ref]) });
  }
  const s = merged(schema, ctx);
  if ("const" in s) return value(s.const);
  if (Array.isArray(s.enum)) {
    const shown = s.enum.slice(0, MAX_ENUM).map(value);
    return shown.join("|") + (s.enum.length > MAX_ENUM ? `|…(${s.enum.length - MAX_ENUM} more)` : "");
  }
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  let types = Array.isArray(s.type)
    ? s.type.filter((t) => typeof t === "string")
    : typeof s.type === "string"
      ? [s.type]
      : [];
  if (!types.length) {
    if (isSchema(s.properties) || alts) types = ["object"];
    else if (s.items !== undefined) types = ["array"];
  }
  if (s.nullable === true && !types.includes("null")) types = [...types, "null"];
  const base = types.map((t) => scalar(t, s, ctx)).join("|");
  if (alts && !requiredAlternatives(s)) {
    const union = alts
      .map((a) => (--ctx.budget.left < 0 ? "…" : typeOf(a, { ...ctx, depth: ctx.depth + 1 })))
      .join(" | ");
    return base && base !== "object" ? `${base} & (${union})` : union;
  }
  return base || "any";
}

const ctxOf = (root: unknown, output: boolean): Ctx => ({
  root: isSchema(root) ? root : {},
  expanding: new Set(),
  depth: 0,
  output,
  budget: { left: MAX_NODES },
});

/** A result's schema as the planner reads it (a tool's response, an artifact's schema). */
export const resultType = (schema: unknown): string =>
  clip(typeOf(schema, ctxOf(schema, true)), MAX_SIGNATURE);

/** One callable as one line: name(args) -> result [irreversible] — description. */
export function signatureOf(tool: PlannerTool): string {
  const root = isSchema(tool.request) ? tool.request : {};
  const ctx = ctxOf(root, false);
  // A request that is a $ref to its own definitions lists that definition's arguments.
  const target = typeof root.$ref === "string" ? resolve(root.$ref, root) : undefined;
  const request = isSchema(target) ? { ...target, ...root, $ref: undefined } : root;
  const args =
    request.type === "object" || request.type === undefined ? objectFields(merged(request, ctx), ctx) : null;
  const result = resultType(tool.response);
  const mark = `${tool.irreversible ? " [irreversible]" : ""}${tool.providers ? ` [${tool.providers} apps]` : ""}`;
  const about = oneLine(tool.description);
  return clip(
    `${tool.tool}(${args ?? "..."}) -> ${result}${mark}${about ? ` — ${about}` : ""}`,
    MAX_SIGNATURE,
  );
}
