/**
 * A planner-written q-llm schema in the form strict structured output takes (OpenAI `strict: true`,
 * guided decoding): every object closed, every property required. An optional property becomes
 * nullable (null meaning absent); a map (`additionalProperties: schema`, no `properties`) becomes an
 * array of `{name, value}`; keywords strict mode lacks and that only narrow (lengths, uniqueness)
 * are dropped, since the answer is decoded and checked against the schema as written anyway. What
 * cannot be made strict (open objects, allOf, `true` schemas, a map or optional property inside a
 * union, directly or through a `$ref`) is refused before the call, with the place named.
 */
import { isRecord } from "../policy/json.ts";
import { failure, type Result } from "../result.ts";

type Schema = Record<string, unknown>;
type Decode = (value: unknown) => unknown;

/** An answer the decoder cannot turn back (a map entry named twice or `__proto__`); the message is fixed. */
export class StrictDecodeError extends Error {}

export type StrictOutput = Result<{ schema: Schema; decode: Decode }, "not_strict", string[]>;

/** OpenAI's bounds for a strict schema (nesting of objects, properties in all). */
const MAX_NESTING = 10;
const MAX_PROPERTIES = 5000;
const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);
const KEPT = [
  "description",
  "enum",
  "const",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
];
const identity: Decode = (v) => v;

class Normaliser {
  readonly problems: string[] = [];
  /** The root's `$defs`, as written: whether a `$ref` allows null is read there. */
  readonly defs: Schema;

  constructor(defs: Schema) {
    this.defs = defs;
  }

  private properties = 0;
  /** Decoders of `$defs`, looked up at decode time so recursive schemas work. */
  readonly defDecoders = new Map<string, Decode>();
  /** Per `$def`: whether it decodes something itself, and the defs it refers to. */
  readonly defUses = new Map<string, { decodes: boolean; refs: Set<string> }>();
  /** The def being normalised, if any. */
  current: { decodes: boolean; refs: Set<string> } | null = null;
  /** `$ref`s met inside anyOf/oneOf: allowed only to defs that need no decoding (known at the end). */
  readonly unionRefs: Array<{ name: string; at: string }> = [];

  refuse(at: string, why: string): { schema: Schema; decode: Decode } {
    if (this.problems.length < 20) this.problems.push(`${at || "#"}: ${why}`);
    return { schema: {}, decode: identity };
  }

  /** `inUnion`: a branch of anyOf, where nothing may need decoding (which branch matched is unknown). */
  node(s: unknown, at: string, depth: number, inUnion: boolean): { schema: Schema; decode: Decode } {
    if (!isRecord(s)) return this.refuse(at, "a true/false schema cannot be made strict");
    if (depth > MAX_NESTING) return this.refuse(at, `objects nest deeper than ${MAX_NESTING} levels`);
    if (s.allOf) return this.refuse(at, "allOf cannot be made strict");
    if (typeof s.$ref === "string") {
      const m = /^#\/\$defs\/([^/]+)$/.exec(s.$ref);
      if (!m) return this.refuse(at, "only #/$defs/<name> references can be made strict");
      const name = m[1]!;
      this.current?.refs.add(name);
      if (inUnion) this.unionRefs.push({ name, at });
      return { schema: { $ref: s.$ref }, decode: (v) => (this.defDecoders.get(name) ?? identity)(v) };
    }
    const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
    if (union) {
      // oneOf becomes anyOf: the answer is re-checked against the schema as written, oneOf included.
      const branches = union.map((b, i) => this.node(b, `${at}/anyOf/${i}`, depth, true).schema);
      return { schema: { ...this.kept(s), anyOf: branches }, decode: identity };
    }
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type];
    if (types.includes("object") || s.properties !== undefined) {
      if (types.length > 1)
        return this.refuse(at, "an object that may also be another type cannot be made strict");
      return this.object(s, at, depth, inUnion);
    }
    if (types.includes("array")) {
      if (types.length > 1)
        return this.refuse(at, "an array that may also be another type cannot be made strict");
      if (s.items === undefined) return this.refuse(at, "an array without items cannot be made strict");
      const items = this.node(s.items, `${at}/items`, depth, inUnion);
      return {
        schema: { ...this.kept(s), type: "array", items: items.schema },
        decode: (v) => (Array.isArray(v) ? v.map(items.decode) : v),
      };
    }
    if (s.type === undefined && s.enum === undefined && s.const === undefined)
      return this.refuse(at, "a schema without a type cannot be made strict");
    const schema: Schema = { ...this.kept(s), ...(s.type !== undefined && { type: s.type }) };
    if (typeof s.format === "string" && FORMATS.has(s.format)) schema.format = s.format;
    return { schema, decode: identity };
  }

  private object(s: Schema, at: string, depth: number, inUnion: boolean): { schema: Schema; decode: Decode } {
    const props = s.properties as Record<string, unknown> | undefined;
    const extra = s.additionalProperties;
    if (!props && isRecord(extra)) {
      if (inUnion) return this.refuse(at, "a map inside anyOf/oneOf cannot be made strict");
      if (this.current) this.current.decodes = true;
      const value = this.node(extra, `${at}/additionalProperties`, depth + 1, false);
      const entry = closed({ name: { type: "string" }, value: value.schema });
      const decode: Decode = (v) =>
        Array.isArray(v) && v.every((e) => isRecord(e) && typeof e.name === "string")
          ? mapOf(v as Array<{ name: string; value: unknown }>, value.decode)
          : v;
      return { schema: { ...this.kept(s), type: "array", items: entry }, decode };
    }
    if (!props) return this.refuse(at, "an object without listed properties cannot be made strict");
    if (isRecord(extra))
      return this.refuse(at, "an object with both properties and a map cannot be made strict");
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const out: Record<string, unknown> = {};
    const decoders: Record<string, Decode> = {};
    const absentWhenNull: string[] = [];
    for (const [name, sub] of Object.entries(props)) {
      if (++this.properties > MAX_PROPERTIES)
        return this.refuse(at, `more than ${MAX_PROPERTIES} properties`);
      const child = this.node(sub, `${at}/properties/${name}`, depth + 1, inUnion);
      decoders[name] = child.decode;
      if (required.has(name) || allowsNull(sub, this.defs)) {
        out[name] = child.schema;
        continue;
      }
      if (inUnion)
        return this.refuse(at, `the optional property "${name}" inside anyOf/oneOf cannot be made strict`);
      out[name] = { anyOf: [child.schema, { type: "null" }] };
      absentWhenNull.push(name);
      if (this.current) this.current.decodes = true;
    }
    const decode: Decode = (v) => {
      if (!isRecord(v)) return v;
      const o: Schema = {};
      for (const [k, x] of Object.entries(v)) {
        if (x === null && absentWhenNull.includes(k)) continue;
        o[k] = Object.hasOwn(decoders, k) ? decoders[k]!(x) : x;
      }
      return o;
    };
    return { schema: { ...this.kept(s), ...closed(out) }, decode };
  }

  private kept(s: Schema): Schema {
    return Object.fromEntries(KEPT.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  }
}

/** `[{name, value}]` back to a map; a name twice or `__proto__` (a prototype, not an entry) is refused. */
function mapOf(entries: Array<{ name: string; value: unknown }>, decode: Decode): Schema {
  const seen = new Set<string>();
  for (const { name } of entries) {
    // Fixed messages: the names are the model's words.
    if (name === "__proto__") throw new StrictDecodeError('a map entry is named "__proto__"');
    if (seen.has(name)) throw new StrictDecodeError("a map entry's name is given twice");
    seen.add(name);
  }
  return Object.fromEntries(entries.map((e) => [e.name, decode(e.value)]));
}

function closed(properties: Record<string, unknown>): Schema {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * Whether null is a value of `s` as written (through `$defs` refs and unions): such an optional
 * property stays as it is, required, since a null it is given is its own, not an absence.
 */
function allowsNull(s: unknown, defs: Schema, seen = new Set<string>()): boolean {
  if (!isRecord(s)) return false;
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) return union.some((b) => allowsNull(b, defs, seen));
  const ref = typeof s.$ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(s.$ref)?.[1] : undefined;
  if (ref === undefined || seen.has(ref)) return false;
  seen.add(ref);
  return Object.hasOwn(defs, ref) && allowsNull(defs[ref], defs, seen);
}

/** The defs whose answers need decoding: their own maps or optional properties, or a def they refer to. */
function decodingDefs(uses: Map<string, { decodes: boolean; refs: Set<string> }>): Set<string> {
  const found = new Set([...uses].filter(([, u]) => u.decodes).map(([name]) => name));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, use] of uses)
      if (!found.has(name) && [...use.refs].some((r) => found.has(r))) {
        found.add(name);
        grew = true;
      }
  }
  return found;
}

/**
 * The strict form of a q-llm output schema (already through the meta-check of schemas.ts), with the
 * decoder from an answer in that form back to the schema as written; or why it cannot be made strict.
 */
const notStrict = (problems: string[]) => failure("not_strict", "the schema cannot be made strict", problems);

export function strictOutputSchema(schema: unknown): StrictOutput {
  const n = new Normaliser(isRecord(schema) && isRecord(schema.$defs) ? schema.$defs : {});
  if (!isRecord(schema) || schema.type !== "object")
    return notStrict(["#: the root must be an object schema"]);
  const root = n.node(schema, "", 0, false);
  const defs: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(isRecord(schema.$defs) ? schema.$defs : {})) {
    n.current = { decodes: false, refs: new Set() };
    const d = n.node(def, `/$defs/${name}`, 1, false);
    n.defUses.set(name, n.current);
    n.current = null;
    defs[name] = d.schema;
    n.defDecoders.set(name, d.decode);
  }
  // A union's branch is never decoded (which one matched is unknown), so it may not refer to a def
  // that needs decoding, directly or through other defs.
  const decoding = decodingDefs(n.defUses);
  for (const { name, at } of n.unionRefs)
    if (decoding.has(name))
      n.refuse(
        at,
        `a $ref to "${name}" (a map or optional property) inside anyOf/oneOf cannot be made strict`,
      );
  if (!n.problems.length && root.schema.type !== "object")
    n.refuse("", "the root must list its properties (a map cannot be a strict root)");
  if (n.problems.length) return notStrict(n.problems);
  const strict = Object.keys(defs).length ? { ...root.schema, $defs: defs } : root.schema;
  return { ok: true, schema: strict, decode: root.decode };
}
