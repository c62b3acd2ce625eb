/**
 * The strict projection of the plan (strict-plan.ts): every plan the DSL accepts survives projection
 * and decoding unchanged, and every document the strict schema accepts decodes to a plan or to a
 * clear validation error, never a throw.
 */
import { type Schema, Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeStrictPlan, strictPlanJsonSchema, validatePlan } from "../../src/policy/index.ts";
import { structuralErrors } from "../../src/policy/structure.ts";
import { type Json, lit, plan, ref, select } from "./builders.ts";
import { encodeStrictPlan } from "./strict-plan-encode.ts";
import { contextOf, planArb, worldArb } from "./world-gen.ts";

const RUNS = { numRuns: 400 };
const strict = new Validator(strictPlanJsonSchema() as Schema, "2020-12", false);
const accepts = (doc: unknown) => strict.validate(doc).valid;

/** Any JSON value the DSL takes as a literal or a q-llm schema's content (no `__proto__` keys). */
const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('"__proto__"'));

/** planArb's valid plans, with random literals and q-llm schemas put in: the open parts of the DSL. */
const dslPlanArb = fc.tuple(planArb(12), fc.gen()).map(([plan, g]) => {
  const visit = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(visit);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) out[k] = visit(x);
    if ("lit" in out && g(fc.boolean)) out.lit = g(() => json) as Json;
    if (out.kind === "tool" && g(fc.boolean)) out.providers = "all";
    if (out.kind === "qllm" && g(fc.boolean)) {
      const extra = g(() => fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 3 }));
      out.schema = { ...(extra as Record<string, Json>), type: "object" };
    }
    return out;
  };
  return visit(plan as unknown as Json);
});

describe("the strict plan projection", () => {
  it("is closed everywhere: every object schema has additionalProperties false and all properties required", () => {
    const open: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) for (const [i, n] of node.entries()) walk(n, `${at}/${i}`);
      else if (node && typeof node === "object") {
        const s = node as Record<string, unknown>;
        if (s.type === "object") {
          const props = Object.keys((s.properties as object | undefined) ?? {});
          const required = (s.required as string[] | undefined) ?? [];
          if (s.additionalProperties !== false || props.some((p) => !required.includes(p))) open.push(at);
        }
        for (const [k, v] of Object.entries(s)) if (k !== "enum") walk(v, `${at}/${k}`);
      }
    };
    walk(strictPlanJsonSchema(), "#");
    expect(open).toEqual([]);
  });

  it("keeps every plan the DSL accepts: projected, it fits the strict schema and decodes back unchanged", () => {
    fc.assert(
      fc.property(dslPlanArb, (generated) => {
        const plan = JSON.parse(JSON.stringify(generated)) as unknown; // plans arrive as JSON text (no -0)
        expect(structuralErrors(plan)).toEqual([]); // the premise: the DSL accepts it
        const doc = encodeStrictPlan(plan);
        expect(strict.validate(doc).errors.slice(0, 3)).toEqual([]);
        const decoded = decodeStrictPlan(JSON.parse(JSON.stringify(doc)));
        expect(decoded).toEqual({ ok: true, plan });
      }),
      RUNS,
    );
  });

  it("decodes every document the strict schema accepts to a valid plan or to clear validation errors", () => {
    let valid = 0;
    let refused = 0;
    fc.assert(
      fc.property(worldArb(), schemaDocArb(strictPlanJsonSchema()), (world, doc) => {
        expect(accepts(doc)).toBe(true); // the premise: the generator writes only what the schema accepts
        const decoded = decodeStrictPlan(doc);
        const result = decoded.ok ? validatePlan(decoded.plan, contextOf(world)) : decoded;
        if (result.ok) {
          valid++;
          // Nothing the model wrote is lost on the way (a `__proto__` entry would vanish).
          if (decoded.ok) expect(encodeStrictPlan(decoded.plan)).toStrictEqual(doc);
          return;
        }
        refused++;
        expect(result.details.length).toBeGreaterThan(0);
        for (const e of result.details) {
          expect(e.rule).not.toBe("internal");
          expect(typeof e.path).toBe("string");
          expect(e.message.length).toBeGreaterThan(0);
        }
      }),
      RUNS,
    );
    // Both ends are reached: the generator is not stuck on one kind of document.
    expect(valid).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it.each([
    ["min by a field", select("s", ref("q"), "min", ["price"])],
    [
      "a filter alone, its value an object literal",
      select("s", ref("q"), "all", undefined, [{ path: ["a", 0], equals: lit({ city: "Lyon" }) }]),
    ],
    [
      "desc with a filter on a reference",
      select("s", ref("q"), "desc", ["at"], [{ path: ["c"], equals: ref("q", "c") }]),
    ],
  ])("takes a select step (%s) to the strict form and back unchanged", (_, step) => {
    const p = plan({ kind: "tool", out: "q", tool: "a.x", args: {}, intent: "i", semantics: "s" }, step);
    const doc = encodeStrictPlan(p) as { steps: Record<string, unknown>[] };
    expect(strict.validate(doc).errors.slice(0, 3)).toEqual([]);
    // Absent fields are written null, as a strict provider must write them.
    expect(Object.keys(doc.steps[1] ?? {}).sort()).toEqual(["by", "kind", "out", "over", "pick", "where"]);
    expect(decodeStrictPlan(JSON.parse(JSON.stringify(doc)))).toEqual({ ok: true, plan: p });
  });

  it("refuses what only the rewriting can get wrong, with the place named", () => {
    const tool = (args: unknown) => ({
      steps: [{ kind: "tool", out: "x", tool: "a.x", args, intent: "i", semantics: "s" }],
    });
    const twice = decodeStrictPlan(
      tool([
        { name: "p", value: { lit: 1 } },
        { name: "p", value: { lit: 2 } },
      ]),
    );
    expect(twice).toEqual({
      ok: false,
      code: "invalid_plan",
      message: "the strict plan does not decode",
      details: [{ path: "steps[0].args[1]", rule: "invalid_value", message: 'the name "p" is given twice' }],
    });
    const qllm = decodeStrictPlan({
      steps: [
        {
          kind: "qllm",
          out: "y",
          inputs: [],
          prompt: "p",
          schema: "{type: object}",
          intent: "i",
          semantics: "s",
        },
      ],
    });
    expect(qllm.ok || qllm.details[0]?.path).toBe("steps[0].schema");
    const proto = decodeStrictPlan(tool([{ name: "__proto__", value: { lit: 1 } }]));
    expect(proto).toEqual({
      ok: false,
      code: "invalid_plan",
      message: "the strict plan does not decode",
      details: [
        { path: "steps[0].args[0]", rule: "invalid_value", message: 'the name "__proto__" is not allowed' },
      ],
    });
    const entry = decodeStrictPlan(
      tool([{ name: "p", value: { lit: { entries: [{ name: "__proto__", value: 1 }] } } }]),
    );
    expect(entry.ok || entry.details[0]?.path).toBe("steps[0].args[0].value.lit.entries[0]");
    const lit = decodeStrictPlan(tool([{ name: "p", value: { lit: { a: 1 } } }]));
    expect(lit.ok || lit.details[0]?.message).toContain("{entries: [{name, value}]}");
  });
});

/**
 * Documents a JSON Schema accepts, for the subset the strict schema uses (closed objects, arrays,
 * anyOf, enum, $ref, pattern, minimum, minItems). Past `depth`, a union takes its first branch and
 * arrays their fewest items, which the strict schema orders so that this always ends.
 */
function schemaDocArb(root: Record<string, unknown>, depth = 4): fc.Arbitrary<unknown> {
  const defs = root.$defs as Record<string, Record<string, unknown>>;
  return fc.gen().map((g) => {
    const int = (min: number, max: number) => g(fc.integer, { min, max });
    /** `key`: the property the value is for; a `{name, value}` entry's name gets the awkward names. */
    const gen = (node: Record<string, unknown>, level: number, key?: string): unknown => {
      if (typeof node.$ref === "string") return gen(defs[node.$ref.split("/").at(-1)!]!, level + 1);
      if (Array.isArray(node.anyOf)) {
        const branches = node.anyOf as Record<string, unknown>[];
        return gen(branches[level > depth ? 0 : int(0, branches.length - 1)]!, level);
      }
      if (key === "name" && node.type === "string")
        return g(fc.constantFrom, "p", "q", "__proto__", "constructor", "toString", "");
      if (Array.isArray(node.enum)) return node.enum[int(0, node.enum.length - 1)];
      switch (node.type) {
        case "object":
          return Object.fromEntries(
            Object.entries(node.properties as Record<string, Record<string, unknown>>).map(([k, s]) => [
              k,
              gen(s, level + 1, k),
            ]),
          );
        case "array": {
          const min = (node.minItems as number | undefined) ?? 0;
          const n = level > depth ? min : int(min, min + 2);
          return Array.from({ length: n }, () => gen(node.items as Record<string, unknown>, level + 1));
        }
        case "string":
          if (node.pattern)
            return int(0, 3) ? `v${int(0, 3)}` : g(fc.stringMatching, new RegExp(node.pattern as string));
          return g(
            fc.constantFrom,
            "a.x",
            "b.z",
            "art0",
            "p",
            '{"type":"object"}',
            "",
            "not json",
            "{}",
            "__proto__",
          );
        case "integer":
          return int((node.minimum as number | undefined) ?? -5, 5);
        case "number":
          return g(fc.double, { noNaN: true, noDefaultInfinity: true });
        case "boolean":
          return g(fc.boolean);
        default:
          return null;
      }
    };
    return gen(root, 0);
  });
}
