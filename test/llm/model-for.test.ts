/**
 * Which model serves a role (modelFor): what a tenant's role keeps on the deployment's endpoint and
 * key, and the deployment's allowed AI Gateways handed to a workers-ai role.
 */
import { describe, expect, it } from "vitest";
import { type ModelConfig, modelFor } from "../../src/llm/index.ts";

const ENV = {
  OPENAI_BASE_URL: "https://gateway.ai.cloudflare.com/v1/deploy/deploy-gw/openai",
  OPENAI_API_KEY: "sk-deployment",
};
const GATEWAY_SETTINGS = {
  apiKeyHeader: "cf-aig-authorization" as const,
  headers: { "cf-aig-collect-log": "false", "cf-aig-custom-cost": '{"total_cost":0}' },
};

describe("a tenant's role on the deployment's endpoint", () => {
  it("does not send its gateway headers or key header to the deployment's gateway on the deployment's key", () => {
    const noHost: ModelConfig = { provider: "openai", model: "m", ...GATEWAY_SETTINGS };
    const sameHost: ModelConfig = { ...noHost, baseURL: ENV.OPENAI_BASE_URL };
    for (const chosen of [noHost, sameHost]) {
      const config = modelFor("planner", { default: chosen }, ENV);
      expect(config).toStrictEqual({
        provider: "openai",
        model: "m",
        baseURL: ENV.OPENAI_BASE_URL,
        apiKey: "sk-deployment",
      });
    }
  });

  it("keeps them with its own baseURL (its own gateway, its own key): the control", () => {
    const own: ModelConfig = {
      provider: "openai",
      model: "m",
      baseURL: "https://gateway.ai.cloudflare.com/v1/tenant/tenant-gw/openai",
      apiKey: "gw-token",
      ...GATEWAY_SETTINGS,
    };
    expect(modelFor("planner", { default: own }, ENV)).toStrictEqual(own);
  });
});

describe("a workers-ai role", () => {
  it("gets the gateway ids the deployment allows (LATTICE_AI_GATEWAYS), none when unset", () => {
    const role: ModelConfig = { provider: "workers-ai", model: "@cf/x", gateway: "gw-a" };
    expect(modelFor("qllm", { qllm: role }, { LATTICE_AI_GATEWAYS: " gw-a, gw-b ,," }).gateways).toEqual([
      "gw-a",
      "gw-b",
    ]);
    expect(modelFor("qllm", { qllm: role }, {}).gateways).toEqual([]);
  });
});
