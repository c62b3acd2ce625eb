/**
 * Property test of the q-llm strict form (src/apps/strict-schema.ts): for generated JSON Schemas the
 * normaliser accepts, and values valid for the schema as written, the value in the strict form fits
 * the strict schema and decodes back to the same value (own keys and plain prototypes included).
 */
import { type Schema as CfSchema, Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { valueProblems } from "../../src/apps/schemas.ts";
import { strictOutputSchema } from "../../src/apps/strict-schema.ts";

type Schema = Record<string, unknown>;

/** Property and map names, the awkward ones included (`__proto__` never survives the JSON guard). */
const NAMES = fc.constantFrom("a", "b", "c", "constructor", "toString", "", "x y");
const DEPTH = { depthSize: "small", maxDepth: 3, depthIdentifier: "schema" } as const;
const SCALARS: Schema[] = [
  { type: "string" },
  { type: "number" },
  { type: "integer" },
  { type: "boolean" },
  { type: ["string", "null"] },
  { enum: ["x", 1, null] },
  { type: "string", minLength: 1, description: "dropped, then checked again" },
];

/** Schemas of the subset the normaliser takes; `withRef` lets a node be `{$ref: "#/$defs/d"}`. */
function schemaArb(withRef: boolean): fc.Arbitrary<Schema> {
  const leaves = [fc.constantFrom(...SCALARS), ...(withRef ? [fc.constant({ $ref: "#/$defs/d" })] : [])];
  return fc.letrec<{ node: Schema; object: Schema; map: Schema; array: Schema; union: Schema }>((tie) => ({
    node: fc.oneof(DEPTH, ...leaves, tie("object"), tie("map"), tie("array"), tie("union")),
    object: objectArb(tie("node")),
    map: tie("node").map((value) => ({ type: "object", additionalProperties: value })),
    array: tie("node").map((items) => ({ type: "array", items })),
    union: fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
  })).node;
}

function objectArb(node: fc.Arbitrary<Schema>, minKeys = 0): fc.Arbitrary<Schema> {
  return fc
    .dictionary(NAMES, node, { minKeys, maxKeys: 3 })
    .chain((properties) =>
      fc.subarray(Object.keys(properties)).map((required) => ({ type: "object", properties, required })),
    );
}

const rootArb = fc
  .tuple(objectArb(schemaArb(true), 1), schemaArb(false))
  .map(([root, d]) => ({ ...root, $defs: { d } }));

/** Whether null is a value of `s` as written (the only def, `d`, has no refs). */
const allowsNull = (s: Schema, defs: Record<string, Schema>): boolean =>
  s.type === "null" ||
  (Array.isArray(s.type) && s.type.includes("null")) ||
  (Array.isArray(s.enum) && s.enum.includes(null)) ||
  (Array.isArray(s.anyOf) && (s.anyOf as Schema[]).some((b) => allowsNull(b, defs))) ||
  (typeof s.$ref === "string" && allowsNull(defs.d!, defs));

/** A value valid for `s` (as written); `defs` resolves `$ref`s. */
function validValue(g: fc.GeneratorValue, s: Schema, defs: Record<string, Schema>): unknown {
  if (typeof s.$ref === "string") return validValue(g, defs.d!, defs);
  if (Array.isArray(s.anyOf)) return validValue(g, g(fc.constantFrom, ...(s.anyOf as Schema[])), defs);
  if (Array.isArray(s.enum)) return g(fc.constantFrom, ...(s.enum as unknown[]));
  if (s.properties) {
    const out: Record<string, unknown> = {};
    const required = s.required as string[];
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      // An optional property that already allows null stays required in the strict form (null is
      // its absence too), so the round trip is exact only when it is given.
      if (required.includes(name) || allowsNull(sub, defs) || g(fc.boolean))
        out[name] = validValue(g, sub, defs);
    }
    return out;
  }
  if (s.additionalProperties) {
    const names = g(fc.uniqueArray, NAMES, { maxLength: 3 });
    return Object.fromEntries(names.map((n) => [n, validValue(g, s.additionalProperties as Schema, defs)]));
  }
  if (s.type === "array") {
    const n = g(fc.integer, { min: 0, max: 2 });
    return Array.from({ length: n }, () => validValue(g, s.items as Schema, defs));
  }
  const type = Array.isArray(s.type) ? g(fc.constantFrom, ...(s.type as string[])) : s.type;
  switch (type) {
    case "string":
      return g(fc.string, { minLength: (s.minLength as number | undefined) ?? 0, maxLength: 4 });
    case "number": {
      const x = g(fc.double, { noNaN: true, noDefaultInfinity: true });
      return x === 0 ? 0 : x; // JSON has no -0
    }
    case "integer":
      return g(fc.integer, { min: -5, max: 5 });
    case "boolean":
      return g(fc.boolean);
    default:
      return null;
  }
}

/** The value as a model held to the strict form writes it: maps as lists, absent optional as null. */
function strictValue(s: Schema, v: unknown, root: Schema): unknown {
  const defs = root.$defs as Record<string, Schema>;
  if (typeof s.$ref === "string") return strictValue(defs.d!, v, root);
  if (Array.isArray(s.anyOf)) {
    // A branch the value fits with its objects closed, as the strict form has them.
    const fits = (b: Schema) => valueProblems({ ...closeAll(b), $defs: closeAll(defs) }, v).length === 0;
    // Branches are never decoded, so one whose strict form is the value itself is the one a model
    // writes it in (a nullable optional property is required there, which another may not have).
    const branches = (s.anyOf as Schema[]).filter(fits).map((b) => strictValue(b, v, root));
    return branches.find((x) => JSON.stringify(x) === JSON.stringify(v)) ?? branches[0];
  }
  if (s.properties) {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(s.properties as Record<string, Schema>).map(([name, sub]) => [
        name,
        Object.hasOwn(o, name) ? strictValue(sub, o[name], root) : null,
      ]),
    );
  }
  if (s.additionalProperties)
    return Object.entries(v as Record<string, unknown>).map(([name, x]) => ({
      name,
      value: strictValue(s.additionalProperties as Schema, x, root),
    }));
  if (s.type === "array") return (v as unknown[]).map((x) => strictValue(s.items as Schema, x, root));
  return v;
}

/** `s` with every object schema that lists properties closed, as the strict form has them. */
function closeAll(s: unknown): Schema {
  if (Array.isArray(s)) return s.map(closeAll) as unknown as Schema;
  if (typeof s !== "object" || s === null) return s as Schema;
  const out: Schema = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, closeAll(v)]));
  if ("properties" in s && (s as Schema).type === "object") out.additionalProperties = false;
  return out;
}

/** Every object's own keys and whether its prototype is Object.prototype, as a comparable tree. */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shapeOf);
  if (typeof v !== "object" || v === null) return v;
  const own = Object.getOwnPropertyNames(v).map((k) => [k, shapeOf((v as Record<string, unknown>)[k])]);
  return { plain: Object.getPrototypeOf(v) === Object.prototype, own };
}

describe("the q-llm strict form", () => {
  it("takes every value valid for a schema it accepts to the strict form and back unchanged", () => {
    let accepted = 0;
    fc.assert(
      fc.property(rootArb, fc.gen(), (schema, g) => {
        const made = strictOutputSchema(schema);
        if (!made.ok) return; // refused before the call: nothing to round-trip
        accepted++;
        const value = validValue(g, schema, schema.$defs);
        expect(valueProblems(schema, value)).toEqual([]); // the premise: valid as written
        const written = JSON.parse(JSON.stringify(strictValue(schema, value, schema)));
        const strict = new Validator(made.schema as CfSchema, "2020-12", false);
        expect(strict.validate(written).errors.slice(0, 3)).toEqual([]);
        const decoded = made.decode(written);
        // Not toStrictEqual: its type check reads `.constructor`, which is an entry here.
        expect(decoded).toEqual(value);
        expect(shapeOf(decoded)).toEqual(shapeOf(value));
      }),
      { numRuns: 500 },
    );
    expect(accepted).toBeGreaterThan(100); // the generator is not stuck on refused schemas
  });
});
