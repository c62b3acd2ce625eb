import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { PlanSchema, planJsonSchema } from "../../src/policy/index.ts";
import { clone, EXAMPLE_PLAN } from "./fixtures.ts";

/** Every schema node of a JSON Schema document, with its JSON pointer. */
function nodes(root: unknown): { at: string; node: Record<string, unknown> }[] {
  const out: { at: string; node: Record<string, unknown> }[] = [];
  const visit = (v: unknown, at: string) => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], `${at}/${i}`);
    } else if (typeof v === "object" && v !== null) {
      out.push({ at, node: v as Record<string, unknown> });
      for (const [k, x] of Object.entries(v)) visit(x, `${at}/${k}`);
    }
  };
  visit(root, "#");
  return out;
}

describe("the planner's JSON Schema (derived from PlanSchema)", () => {
  const schema = planJsonSchema();

  it("has an object root and the recursive definitions in $defs", () => {
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["steps"]);
    expect(Object.keys(schema.$defs as object).sort()).toEqual(["Expr", "JsonValue", "Predicate", "Step"]);
  });

  it("resolves every $ref to a definition", () => {
    const defs = schema.$defs as Record<string, unknown>;
    const refs = nodes(schema).flatMap(({ node }) => (typeof node.$ref === "string" ? [node.$ref] : []));
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(defs[ref.replace("#/$defs/", "")], ref).toBeDefined();
  });

  it("avoids the keywords OpenAI refuses (oneOf, propertyNames, $schema)", () => {
    const text = JSON.stringify(schema);
    expect(text).not.toContain('"oneOf"');
    expect(text).not.toContain('"propertyNames"');
    expect(text).not.toContain('"$schema"');
  });

  it("closes every fixed-shape object (additionalProperties: false)", () => {
    const objects = nodes(schema).filter(
      ({ node }) => node.type === "object" && node.properties !== undefined,
    );
    const open = objects.filter(({ node }) => node.additionalProperties !== false).map(({ at }) => at);
    // The only open object with properties is the q-llm output schema, which is itself a JSON Schema.
    expect(open).toEqual(["#/$defs/Step/anyOf/2/properties/schema"]);
  });

  it("accepts DSL.md's example and refuses a plan with an unknown kind (checked by a real validator)", () => {
    const v = new Validator(schema as never, "2020-12", false);
    expect(v.validate(EXAMPLE_PLAN).valid).toBe(true);
    const bad = clone(EXAMPLE_PLAN) as { steps: Record<string, unknown>[] };
    (bad.steps[0] as Record<string, unknown>).kind = "exec";
    expect(v.validate(bad).valid).toBe(false);
  });

  it("is the JSON Schema of the zod schema, which accepts the example too", () => {
    expect(PlanSchema.safeParse(EXAMPLE_PLAN).success).toBe(true);
    expect(PlanSchema.safeParse({ steps: [{ kind: "display" }] }).success).toBe(false);
  });
});

describe("the select step in the planner's JSON Schema (#43)", () => {
  const v = new Validator(planJsonSchema() as never, "2020-12", false);
  const quotes = { kind: "retrieve", out: "q", artifact: "a1" };
  const step = { kind: "select", out: "s", over: { ref: "q" }, by: ["value", "price"], pick: "min" };

  it.each([
    ["min by a path", step, true],
    [
      "a filter alone",
      { ...step, by: undefined, pick: "all", where: [{ path: ["city"], equals: { lit: "Lyon" } }] },
      true,
    ],
    ["a pick the DSL does not have", { ...step, pick: "cheapest" }, false],
    ["a by that is an expression", { ...step, by: { ref: "q" } }, false],
    ["a where with no value", { ...step, where: [{ path: ["city"] }] }, false],
    ["a field select does not have", { ...step, prompt: "pick the best" }, false],
  ])("%s: the JSON Schema and the zod schema agree", (_, s, ok) => {
    const p = JSON.parse(JSON.stringify({ steps: [quotes, s] }));
    expect(v.validate(p).valid).toBe(ok);
    expect(PlanSchema.safeParse(p).success).toBe(ok);
  });
});
