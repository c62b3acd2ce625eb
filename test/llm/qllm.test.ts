/**
 * q-llm output schemas made strict (src/apps/strict-schema.ts) and the vanilla spoke's q-llm call
 * (src/objects/spoke/qllm.ts) over a FAKE AI binding: refused before the call when a schema cannot
 * be made strict, answers decoded back and checked against the schema as written, one repair-free
 * retry, every call's tokens counted.
 */
import { describe, expect, it } from "vitest";
import { valueProblems } from "../../src/apps/schemas.ts";
import { strictOutputSchema } from "../../src/apps/strict-schema.ts";
import { DEFAULT_MODEL_LIMITS } from "../../src/llm/index.ts";
import { runQllm } from "../../src/objects/spoke/qllm.ts";
import { FakeAiBinding } from "../fakes/ai-binding.ts";

const TOTALS = {
  type: "object",
  properties: {
    total: { type: "number" },
    note: { type: "string", minLength: 1 },
    byVendor: { type: "object", additionalProperties: { type: "number" } },
    lines: { type: "array", items: { $ref: "#/$defs/line" }, uniqueItems: true },
  },
  required: ["total", "byVendor"],
  $defs: {
    line: { type: "object", properties: { label: { type: "string" }, amount: { type: ["number", "null"] } } },
  },
};

describe("a q-llm schema made strict", () => {
  it("closes objects, makes optional properties nullable, maps lists, and drops only narrowing keywords", () => {
    const made = strictOutputSchema(TOTALS);
    if (!made.ok) throw new Error(made.details.join("; "));
    expect(made.schema).toEqual({
      type: "object",
      properties: {
        total: { type: "number" },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        byVendor: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, value: { type: "number" } },
            required: ["name", "value"],
            additionalProperties: false,
          },
        },
        lines: { anyOf: [{ type: "array", items: { $ref: "#/$defs/line" } }, { type: "null" }] },
      },
      required: ["total", "note", "byVendor", "lines"],
      additionalProperties: false,
      $defs: {
        line: {
          type: "object",
          properties: {
            label: { anyOf: [{ type: "string" }, { type: "null" }] },
            amount: { type: ["number", "null"] },
          },
          required: ["label", "amount"],
          additionalProperties: false,
        },
      },
    });
  });

  it("decodes an answer in the strict form to one the schema as written accepts", () => {
    const made = strictOutputSchema(TOTALS);
    if (!made.ok) throw new Error("not strict");
    const answer = {
      total: 113.2,
      note: null,
      byVendor: [
        { name: "ACME", value: 100 },
        { name: "Bolt", value: 13.2 },
      ],
      lines: [{ label: null, amount: null }],
    };
    const decoded = made.decode(answer);
    expect(decoded).toEqual({ total: 113.2, byVendor: { ACME: 100, Bolt: 13.2 }, lines: [{ amount: null }] });
    expect(valueProblems(TOTALS, decoded)).toEqual([]);
  });

  it("refuses what cannot be made strict, naming the place", () => {
    const problems = (schema: unknown) => {
      const made = strictOutputSchema(schema);
      return made.ok ? [] : made.details;
    };
    expect(problems({ type: "object" })).toEqual([
      "#: an object without listed properties cannot be made strict",
    ]);
    expect(problems({ type: "object", properties: { a: { allOf: [{ type: "string" }] } } })).toEqual([
      "/properties/a: allOf cannot be made strict",
    ]);
    expect(problems({ type: "object", properties: { a: true } })).toEqual([
      "/properties/a: a true/false schema cannot be made strict",
    ]);
    expect(
      problems({
        type: "object",
        properties: {
          a: { anyOf: [{ type: "object", properties: { x: { type: "string" } } }, { type: "string" }] },
        },
      }),
    ).toEqual(['/properties/a/anyOf/0: the optional property "x" inside anyOf/oneOf cannot be made strict']);
    expect(problems({ type: "object", additionalProperties: { type: "string" } })[0]).toContain(
      "strict root",
    );
  });
});

describe("the q-llm call", () => {
  const call = {
    tenantId: "t",
    userId: "u",
    modelTimeoutMs: 1000,
    prompt: "total them",
    inputs: { emails: [] },
  };
  const model = (ai: FakeAiBinding) => ({
    config: { provider: "workers-ai" as const, model: "@cf/x" },
    limits: DEFAULT_MODEL_LIMITS,
    ai,
  });
  const usage = { prompt_tokens: 10, completion_tokens: 5 };

  it("refuses a schema that cannot be made strict before any call", async () => {
    const ai = new FakeAiBinding([{ response: "{}" }]);
    const result = await runQllm({ ...call, schema: { type: "object" } }, model(ai), async () => {});
    expect(result).toMatchObject({ ok: false, code: "schema_not_strict" });
    expect(ai.calls).toEqual([]);
  });

  it("decodes a strict answer and checks it against the schema as written", async () => {
    const ai = new FakeAiBinding([
      { response: { total: 3, note: null, byVendor: [{ name: "A", value: 3 }], lines: null }, usage },
    ]);
    const spent: number[] = [];
    const result = await runQllm({ ...call, schema: TOTALS }, model(ai), async (t) => {
      spent.push(t);
    });
    expect(result).toEqual({ ok: true, value: { total: 3, byVendor: { A: 3 } }, tokens: 15 });
    expect(spent).toEqual([15]);
  });

  it("asks once more, unchanged, after an answer that is not JSON for the schema, then fails with the reason", async () => {
    const ai = new FakeAiBinding([
      { response: "Sure, the total is 3.", usage },
      { response: { total: "3" }, usage },
    ]);
    const spent: number[] = [];
    const result = await runQllm({ ...call, schema: TOTALS }, model(ai), async (t) => {
      spent.push(t);
    });
    expect(result).toMatchObject({ ok: false, code: "invalid_model_output" });
    expect((result as { message: string }).message).toContain("breaks its schema");
    expect(ai.calls).toHaveLength(2);
    expect(ai.calls[1]).toEqual(ai.calls[0]);
    expect(spent).toEqual([15, 15]); // the bad answers are billed, so they are counted
  });

  it("recovers when the one retry answers well", async () => {
    const ai = new FakeAiBinding([
      { response: '{"total": 3, "byVe', usage },
      { response: { total: 3, note: "ok", byVendor: [], lines: [] }, usage },
    ]);
    const result = await runQllm({ ...call, schema: TOTALS }, model(ai), async () => {});
    // Both calls are billed, so the step's tokens are both calls'.
    expect(result).toEqual({
      ok: true,
      value: { total: 3, note: "ok", byVendor: {}, lines: [] },
      tokens: 30,
    });
  });
});
