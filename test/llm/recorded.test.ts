/**
 * Recorded provider answers (test/fixtures/recorded-answers.ts) replayed through the real provider
 * code (the `openai` provider over a stubbed fetch, `workers-ai` over a FAKE AI binding) and the
 * real planner: each ends in a valid plan or a clean failure with its reason, never a throw.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ServingAppInfo } from "../../src/contracts.ts";
import { complete, DEFAULT_MODEL_LIMITS, type ModelConfig } from "../../src/llm/index.ts";
import { defencesOf, type PlannerModel, planQuery } from "../../src/runtime/index.ts";
import { FakeAiBinding } from "../fakes/ai-binding.ts";
import { RECORDED, type Recorded } from "../fixtures/recorded-answers.ts";
import { policy } from "../policy/fixtures.ts";

const CONTACTS: ServingAppInfo = {
  appId: "app_contacts",
  name: "contacts",
  version: 1,
  clearance: "confidential",
  manifest: {
    name: "contacts",
    description: "contacts app",
    version: "1.0.0",
    endpoint: "https://x.test",
    functionalities: [
      {
        name: "lookup",
        description: "look a contact up",
        request: {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
          additionalProperties: false,
        },
        response: { type: "object", properties: { email: { type: "string" } } },
        irreversible: false,
        output: { confidentiality: "internal" },
      },
    ],
  },
  bindings: {},
};

const CONFIGS: Record<Recorded["shape"], ModelConfig> = {
  "openai-strict": { provider: "openai", model: "gpt-4o-2024-08-06", apiKey: "sk-test" },
  "openai-plain": { provider: "openai", model: "some-model", baseURL: "https://llm.example.test/v1" },
  "vllm-guided": {
    provider: "openai",
    model: "Qwen/Qwen2.5-7B-Instruct",
    baseURL: "http://vllm.internal:8000/v1",
    output: "guided_json",
  },
  "workers-ai": { provider: "workers-ai", model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast" },
};

afterEach(() => vi.unstubAllGlobals());

/** Plans "Who is my landlord?" with the recorded answer as the provider's every answer. */
async function replay(recorded: Recorded) {
  const sent: Array<Record<string, unknown>> = [];
  vi.stubGlobal("fetch", async (_url: unknown, init?: RequestInit) => {
    sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return Response.json(recorded.answer);
  });
  const ai = new FakeAiBinding([recorded.answer]);
  const config = CONFIGS[recorded.shape];
  const model: PlannerModel = async (messages, schemas) => {
    const answer = await complete(
      config,
      { role: "planner", messages, schema: { name: "plan", schema: schemas.plan, strict: schemas.strict } },
      DEFAULT_MODEL_LIMITS,
      { ai },
    );
    return {
      text: answer.text,
      tokens: answer.usage.inputTokens + answer.usage.outputTokens,
      form: answer.form ?? "plain",
      finish: answer.finish ?? "stop",
    };
  };
  const result = await planQuery({
    query: "Who is my landlord?",
    earlierQueries: [],
    catalog: [],
    apps: [CONTACTS],
    artifacts: [],
    policy: policy({ planning: { mode: "apps" } }),
    defences: defencesOf({}),
    roles: ["member"],
    model,
  });
  const requests = recorded.shape === "workers-ai" ? ai.calls.map((c) => c.inputs) : sent;
  return { result, requests };
}

describe("recorded provider answers", () => {
  for (const recorded of RECORDED) {
    it(`${recorded.shape} — ${recorded.name}`, async () => {
      const { result, requests } = await replay(recorded);
      if (recorded.ends === "plan") {
        expect(result.state, JSON.stringify(result)).toBe("running");
        expect(requests).toHaveLength(1);
      } else {
        expect(result.state).toBe("invalid");
        if (result.state !== "invalid") return;
        expect(result.error.code).toBe("invalid_plan");
        expect(result.error.message).toContain(recorded.ends.reason);
        // A refusal is final; anything else gets one repair-free retry: the same messages again.
        const retried = !recorded.ends.reason.includes("declined");
        expect(requests).toHaveLength(retried ? 2 : 1);
        if (retried) expect(requests[1]).toEqual(requests[0]);
      }
    });
  }

  it("ends every malformed answer cleanly (the share the issue asks for)", async () => {
    const malformed = RECORDED.filter((r) => r.ends !== "plan");
    let clean = 0;
    for (const recorded of malformed) {
      const { result } = await replay(recorded);
      if (result.state === "invalid" && result.error.message.length > 0) clean++;
    }
    console.info(`recorded malformed answers ending cleanly: ${clean}/${malformed.length}`);
    expect(malformed.length).toBeGreaterThanOrEqual(12);
    expect(clean).toBe(malformed.length);
  });

  it("sends each provider what its mode asks for", async () => {
    const first = async (shape: Recorded["shape"]) =>
      (await replay(RECORDED.find((r) => r.shape === shape && r.ends === "plan")!)).requests[0]!;
    const strict = (await first("openai-strict")).response_format as {
      json_schema: { strict: boolean; schema: { $defs: Record<string, unknown> } };
    };
    expect(strict.json_schema.strict).toBe(true);
    expect(strict.json_schema.schema.$defs).toHaveProperty("Field"); // the strict form, maps as lists
    const plain = (await first("openai-plain")).response_format as { json_schema: { strict: boolean } };
    expect(plain.json_schema.strict).toBe(false);
    const guided = await first("vllm-guided");
    expect(guided.response_format).toMatchObject({ json_schema: { strict: true } });
    expect(guided.structured_outputs).toHaveProperty("json.$defs.Field");
    const workers = (await first("workers-ai")).response_format as { type: string; json_schema: object };
    expect(workers.type).toBe("json_schema");
    expect(workers.json_schema).toHaveProperty("$defs.Field");
  });
});
