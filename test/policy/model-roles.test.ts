/**
 * Model roles in the policy: every policy docs/models.md shows a tenant writing parses, and the
 * combinations a provider cannot take are refused at the field.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../src/policy/index.ts";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/models.md"), "utf8");
const examples = [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((m) =>
  // The docs write placeholders in angle brackets and ellipses; any string will do here.
  JSON.parse(m[1]!.replaceAll("<account id>", "acct").replaceAll("<gateway id>", "gw")),
);

const refused = (models: Record<string, unknown>) => {
  const r = parsePolicy({ models });
  return r.ok ? [] : r.details.map((i) => `${i.path}: ${i.message}`);
};

describe("model roles", () => {
  it("accepts every policy docs/models.md shows (OpenAI, Workers AI, AI Gateway, vLLM, Ollama)", () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const example of examples) {
      const r = parsePolicy(example);
      expect(r.ok, JSON.stringify(r.ok ? null : r.details)).toBe(true);
    }
  });

  it("refuses a workers-ai role with a host, a key or strict output, and a gateway id on openai", () => {
    expect(
      refused({
        default: { provider: "workers-ai", model: "@cf/x", baseURL: "https://x.test", apiKey: "k" },
      }),
    ).toEqual([
      "models.default.baseURL: workers-ai runs over the Worker's AI binding and takes no baseURL",
      "models.default.apiKey: workers-ai runs over the Worker's AI binding and takes no apiKey",
    ]);
    expect(refused({ qllm: { provider: "workers-ai", model: "@cf/x", output: "strict" } })).toEqual([
      "models.qllm.output: workers-ai takes json_schema (its JSON mode), json_object or none",
    ]);
    expect(refused({ planner: { provider: "openai", model: "m", gateway: "gw" } })).toHaveLength(1);
  });

  const gateway = {
    provider: "openai",
    model: "m",
    baseURL: "https://gateway.ai.cloudflare.com/v1/a/g/openai",
  };

  it("takes only AI Gateway's caching and metadata headers, and never its token among them", () => {
    expect(
      refused({
        default: {
          ...gateway,
          headers: {
            "cf-aig-skip-cache": "true",
            "cf-aig-cache-ttl": "60",
            "cf-aig-cache-key": "k",
            "cf-aig-metadata": '{"a":1}',
          },
        },
      }),
    ).toEqual([]);
    const [token] = refused({ default: { ...gateway, headers: { "cf-aig-authorization": "Bearer t" } } });
    expect(token).toContain('apiKeyHeader "cf-aig-authorization"');
    expect(refused({ default: { ...gateway, headers: { "x-api-key": "k" } } })[0]).toContain(
      "cf-aig-cache-ttl",
    );
    // These change how the gateway logs, bills or retries a call: the gateway owner's to decide.
    for (const name of ["cf-aig-collect-log", "cf-aig-custom-cost", "cf-aig-max-attempts", "cf-aig-event-id"])
      expect(refused({ default: { ...gateway, headers: { [name]: "x" } } }), name).toEqual([
        `models.default.headers["${name}"]: only AI Gateway's cf-aig-cache-ttl, cf-aig-skip-cache, cf-aig-cache-key, cf-aig-metadata`,
      ]);
  });

  it("refuses a header value that could end its header (CR, LF, other control characters)", () => {
    for (const value of ["1\r\nx-evil: 1", "a\nb", "tab\there", "é"])
      expect(
        refused({ default: { ...gateway, headers: { "cf-aig-cache-ttl": value } } })[0],
        value,
      ).toContain("printable ASCII");
  });

  it("refuses gateway headers and the key header without the role's own baseURL, and on workers-ai", () => {
    expect(
      refused({
        default: {
          provider: "openai",
          model: "m",
          apiKeyHeader: "cf-aig-authorization",
          headers: { "cf-aig-cache-ttl": "60" },
        },
      }),
    ).toEqual([
      "models.default.headers: headers goes only with the role's own baseURL (its AI Gateway)",
      "models.default.apiKeyHeader: apiKeyHeader goes only with the role's own baseURL (its AI Gateway)",
    ]);
    expect(
      refused({
        qllm: {
          provider: "workers-ai",
          model: "@cf/x",
          apiKeyHeader: "authorization",
          headers: { "cf-aig-cache-ttl": "60" },
        },
      }),
    ).toEqual([
      "models.qllm.headers: workers-ai runs over the Worker's AI binding and takes no headers",
      "models.qllm.apiKeyHeader: workers-ai runs over the Worker's AI binding and takes no apiKeyHeader",
    ]);
  });
});
