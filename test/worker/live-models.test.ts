/**
 * Live-model answers end to end: recorded OpenAI-shaped responses (test/fixtures/recorded-answers.ts)
 * served by the FAKE OpenAI-compatible server to the real `openai` provider, through the API. Each
 * query ends in a valid plan that runs or a clean failure with its reason (never a 5xx), what was
 * sent follows the role's output mode, and every call's tokens, retries included, are counted.
 * Workers AI answers come from a FAKE AI binding (test/fakes/ai-server.ts) the hub and spokes call.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { flushUsage } from "../../src/objects/tenant-replica/index.ts";
import { RECORDED } from "../fixtures/recorded-answers.ts";
import { api } from "./helpers.ts";
import {
  ask,
  display,
  FAKE_BASE_URL,
  hubWorld,
  lit,
  modelLog,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/** The FAKE AI binding's test-only methods (test/fakes/ai-server.ts). */
const fakeAi = () =>
  (
    env as unknown as {
      AI: {
        setAnswers(model: string, answers: unknown[]): Promise<void>;
        calls(model: string): Promise<unknown[]>;
      };
    }
  ).AI;

const OUTPUT = {
  "openai-strict": "strict",
  "openai-plain": "json_schema",
  "vllm-guided": "guided_json",
} as const;
const SERVED = RECORDED.filter((r) => r.shape !== "workers-ai");

/** Today's model tokens, read from the tenant's own counters. */
async function tokensToday(tenantId: string): Promise<number> {
  await flushUsage(); // this isolate's batch of counts, sent now
  const tenant = rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenantId)));
  return (await tenant.recordUsage(new Date().toISOString().slice(0, 10), {})).model_tokens;
}

describe("recorded live-model answers through the API", () => {
  for (const shape of ["openai-strict", "openai-plain", "vllm-guided"] as const) {
    it(`${shape}: every recorded answer ends in a plan that runs or a clean failure`, async () => {
      const w = await hubWorld(["contacts"], {}, {}, { model: { output: OUTPUT[shape] } });
      const sid = await openSession(w);
      for (const recorded of SERVED.filter((r) => r.shape === shape)) {
        await script(w.models.planner, [{ completion: recorded.answer }]);
        const before = (await modelLog(w.models.planner)).length;
        const res = await api("POST", `/v1/sessions/${sid}/queries`, {
          key: w.frontend,
          body: { text: "Who is my landlord?" },
        });
        expect(res.status, recorded.name).toBe(202);
        const q = await settle(w, sid, (res.body as { id: string }).id);
        if (recorded.ends === "plan") {
          expect(q.status, `${recorded.name}: ${JSON.stringify(q.error)}`).toBe("completed");
        } else {
          expect(q.status, recorded.name).toBe("failed");
          expect(q.error?.code, recorded.name).toBe("invalid_plan");
          expect(q.error?.message, recorded.name).toContain(recorded.ends.reason);
        }
        const sent = (await modelLog(w.models.planner)).slice(before) as unknown as Array<
          Record<string, unknown>
        >;
        expect(sent.length, recorded.name).toBeGreaterThan(0);
        for (const body of sent) {
          if (shape === "openai-strict")
            expect(body.response_format, recorded.name).toMatchObject({ json_schema: { strict: true } });
          if (shape === "openai-plain")
            expect(body.response_format, recorded.name).toMatchObject({ json_schema: { strict: false } });
          if (shape === "vllm-guided")
            expect(body.structured_outputs, recorded.name).toHaveProperty("json.$defs.Field");
        }
      }
    });
  }

  it("counts every planner call's tokens, the repair-free retry's too", async () => {
    const w = await hubWorld(["contacts"]);
    const sid = await openSession(w);
    const prose = SERVED.find((r) => r.name === "OpenAI non-strict: prose")!;
    await script(w.models.planner, [{ completion: prose.answer }]);
    const q = await settle(w, sid, await ask(w, sid, "Who is my landlord?"));
    expect(q).toMatchObject({ status: "failed", error: { code: "invalid_plan" } });
    expect(await modelLog(w.models.planner)).toHaveLength(2);
    expect(await tokensToday(w.tenant.tenantId)).toBe(2 * 908); // the recorded usage, twice
  });

  it("workers-ai: every recorded binding result ends in a plan that runs or a clean failure", async () => {
    const w = await hubWorld(["contacts"]);
    const model = `${w.world}-wai`;
    const put = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { planning: { mode: "apps" }, models: { planner: { provider: "workers-ai", model } } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const sid = await openSession(w);
    for (const recorded of RECORDED.filter((r) => r.shape === "workers-ai")) {
      await fakeAi().setAnswers(model, [recorded.answer]);
      const q = await settle(w, sid, await ask(w, sid, "Who is my landlord?"));
      if (recorded.ends === "plan")
        expect(q.status, `${recorded.name}: ${JSON.stringify(q.error)}`).toBe("completed");
      else {
        expect(q.status, recorded.name).toBe("failed");
        expect(q.error?.message, recorded.name).toContain(recorded.ends.reason);
      }
      const [sent] = (await fakeAi().calls(model)) as Array<{ response_format?: { json_schema?: object } }>;
      expect(sent?.response_format?.json_schema, recorded.name).toHaveProperty("$defs.Field");
    }
  });

  it("workers-ai q-llm: a map in the step's schema is asked for strictly and shown as the map it is", async () => {
    const w = await hubWorld(["contacts"]);
    const model = `${w.world}-wai`;
    const planner = {
      provider: "openai",
      baseURL: FAKE_BASE_URL,
      model: w.models.planner,
      apiKey: "test-key",
    };
    const put = await api("PUT", "/v1/admin/policy", {
      key: w.tenant.adminKey,
      body: { planning: { mode: "apps" }, models: { planner, qllm: { provider: "workers-ai", model } } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const schema = {
      type: "object",
      properties: {
        summary: { type: "string" },
        letters: { type: "object", additionalProperties: { type: "integer" } },
      },
      required: ["summary", "letters"],
    };
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("who", "contacts.lookup", { name: lit("landlord") }),
            {
              kind: "qllm",
              out: "counted",
              inputs: { contact: ref("who") },
              prompt: "Count the letters of the contact's name by letter.",
              schema,
              intent: "count letters",
              semantics: "letter counts",
            },
            display(ref("counted"), "Counted"),
          ],
        },
      },
    ]);
    await fakeAi().setAnswers(model, [
      {
        response: {
          summary: "two letters",
          letters: [
            { name: "a", value: 1 },
            { name: "b", value: 1 },
          ],
        },
      },
    ]);
    const sid = await openSession(w);
    const q = await settle(w, sid, await ask(w, sid, "Count the letters of my landlord's name"));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(q.display[0]?.value).toEqual({ summary: "two letters", letters: { a: 1, b: 1 } });
    const [sent] = (await fakeAi().calls(model)) as Array<{ response_format: { json_schema: unknown } }>;
    expect(sent?.response_format.json_schema).toMatchObject({
      properties: { letters: { type: "array", items: { required: ["name", "value"] } } },
      additionalProperties: false,
    });
  });

  it("refuses a workers-ai role given a host or a key, and a gateway token among the headers", async () => {
    const w = await hubWorld([]);
    const put = (models: Record<string, unknown>) =>
      api("PUT", "/v1/admin/policy", { key: w.tenant.adminKey, body: { models } });
    const hosted = await put({
      default: { provider: "workers-ai", model: "@cf/x", baseURL: "https://x.test/v1" },
    });
    expect(hosted.status).toBe(400);
    expect(JSON.stringify(hosted.body)).toContain("models.default.baseURL");
    const token = await put({
      default: { provider: "openai", model: "m", headers: { "cf-aig-authorization": "Bearer t" } },
    });
    expect(token.status).toBe(400);
    expect(JSON.stringify(token.body)).toContain("apiKeyHeader");
    // The controls: the same roles without the host, and with a header AI Gateway allows on the
    // role's own gateway, are taken.
    expect((await put({ default: { provider: "workers-ai", model: "@cf/x" } })).status).toBe(200);
    const own = "https://gateway.ai.cloudflare.com/v1/a/g/openai";
    const cached = { provider: "openai", model: "m", baseURL: own, headers: { "cf-aig-cache-ttl": "60" } };
    expect((await put({ default: cached })).status).toBe(200);
  });
});
