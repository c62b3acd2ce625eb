import { describe, expect, it } from "vitest";
import {
  AUTHOR_NAMES,
  DEFAULT_POLICY,
  PolicySchema,
  parseNewPolicy,
  parsePolicy,
  policyLattices,
  trustedLeaves,
} from "../../src/policy/index.ts";

function issues(json: unknown) {
  const r = parsePolicy(json);
  if (r.ok) throw new Error("expected the policy to be refused");
  return r.details;
}

describe("parsePolicy: defaults", () => {
  it("fills every field left out with the secure default", () => {
    const r = parsePolicy({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.policy).toEqual({
      lattices: {
        confidentiality: ["public", "internal", "confidential", "secret"],
        integrity: ["untrusted", "app", "user"],
      },
      tools: {},
      display: {},
      cors: { origins: [] },
      oauth: {},
      onViolation: "reject",
      selfCorrection: 0,
      consent: { dataShare: true, timeoutSeconds: 600, trustedApps: [] },
      limits: {
        maxSteps: 100,
        maxDepth: 4,
        modelTimeoutMs: 30_000,
        appTimeoutMs: 10_000,
        maxLoopIterations: 100,
        maxCalls: 200,
        maxWork: 10_000,
      },
      retention: { auditDays: 90, queryDays: 30 },
      quotas: {
        queriesPerDay: 10_000,
        modelTokensPerDay: 5_000_000,
        appCallsPerDay: 100_000,
        plainCallsPerDay: 1_000,
      },
      plainModel: { enabled: false },
      trustedHeaders: {
        user: ["X-OpenWebUI-User-Id"],
        chat: ["X-OpenWebUI-Chat-Id"],
        name: ["X-OpenWebUI-User-Name"],
      },
      models: {},
      planning: { mode: "catalog", earlierQueries: 10 },
      roles: { member: { entries: "*" } },
      defaultRoles: ["member"],
    });
    expect(DEFAULT_POLICY).toEqual(r.policy);
  });

  it("fills the missing fields of a partial object", () => {
    const r = parsePolicy({
      consent: { dataShare: false },
      limits: { maxSteps: 10 },
      lattices: { integrity: ["low", "high"] },
    });
    expect(r.ok && r.policy.consent).toEqual({ dataShare: false, timeoutSeconds: 600, trustedApps: [] });
    expect(r.ok && r.policy.limits).toMatchObject({ maxSteps: 10, maxDepth: 4 });
    expect(r.ok && r.policy.lattices.confidentiality).toHaveLength(4);
  });

  it("accepts the whole document of API.md", () => {
    const r = parsePolicy({
      lattices: {
        confidentiality: ["public", "internal", "confidential", "secret"],
        integrity: ["untrusted", "app", "user"],
      },
      tools: {
        "mail.send": {
          maxInputConfidentiality: "confidential",
          minInputIntegrity: "user",
          args: { body: { minIntegrity: "untrusted", maxConfidentiality: "confidential" } },
          output: { confidentiality: "internal", integrity: "untrusted" },
        },
        "contacts.lookup": { output: { integrity: "user" } },
      },
      display: { maxConfidentiality: "confidential" },
      onViolation: "ask",
      selfCorrection: 1,
      consent: { dataShare: true, timeoutSeconds: 120, trustedApps: ["contacts"] },
      limits: { maxSteps: 50, maxDepth: 3 },
      models: {
        default: {
          provider: "openai",
          baseURL: "https://api.openai.com/v1",
          model: "gpt-4o",
          apiKey: "sk-x",
        },
        planner: { provider: "scripted", model: "demo" },
      },
    });
    expect(r.ok).toBe(true);
  });

  it("returns a frozen policy, so a checked policy cannot change afterwards", () => {
    const r = parsePolicy({ tools: { "a.b": { args: { x: { minIntegrity: "user" } } } } });
    expect(r.ok && Object.isFrozen(r.policy.tools["a.b"]?.args)).toBe(true);
  });

  it("builds the lattices of a custom policy", () => {
    const r = parsePolicy({ lattices: { confidentiality: ["open", "closed"] } });
    expect(r.ok && policyLattices(r.policy).confidentiality.top).toBe("closed");
  });
});

describe("parsePolicy: refusals name the field", () => {
  it("refuses a lattice with a duplicate level (not a total order)", () => {
    expect(issues({ lattices: { confidentiality: ["public", "secret", "public"] } })).toEqual([
      {
        path: "lattices.confidentiality",
        message: 'level "public" appears twice, so the levels are not a total order',
      },
    ]);
  });

  it("refuses an empty lattice", () => {
    expect(issues({ lattices: { integrity: [] } })[0]?.path).toBe("lattices.integrity");
  });

  it("refuses an unknown level name in a per-argument policy", () => {
    expect(issues({ tools: { "mail.send": { args: { to: { minIntegrity: "trusted" } } } } })).toEqual([
      {
        path: 'tools["mail.send"].args.to.minIntegrity',
        message: 'unknown integrity level "trusted"; the levels are untrusted < app < user',
      },
    ]);
  });

  it("refuses unknown level names in tool, output and display policies", () => {
    const paths = issues({
      tools: {
        "a.b": { maxInputConfidentiality: "top", minInputIntegrity: "x", output: { confidentiality: "y" } },
      },
      display: { maxConfidentiality: "classified" },
    }).map((i) => i.path);
    expect(paths).toEqual([
      'tools["a.b"].maxInputConfidentiality',
      'tools["a.b"].minInputIntegrity',
      'tools["a.b"].output.confidentiality',
      "display.maxConfidentiality",
    ]);
  });

  it("checks level names against the tenant's own lattices, not the defaults", () => {
    const custom = { lattices: { confidentiality: ["open", "closed"] } };
    expect(parsePolicy({ ...custom, display: { maxConfidentiality: "open" } }).ok).toBe(true);
    expect(issues({ ...custom, display: { maxConfidentiality: "secret" } })[0]?.message).toMatch(
      /open < closed/,
    );
  });

  it("refuses unknown fields, such as a version (the store versions the document) or a typo", () => {
    expect(issues({ version: 3 })).toEqual([{ path: "version", message: 'unknown field "version"' }]);
    expect(issues({ tools: { "a.b": { minIntegrity: "user" } } })[0]?.path).toBe('tools["a.b"].minIntegrity');
    expect(issues({ consent: { datashare: false } })[0]?.path).toBe("consent.datashare");
  });

  it.each([
    [{ user: ["X User"] }, "trustedHeaders.user[0]", /a header name/],
    [{ user: ["Authorization"] }, "trustedHeaders.user[0]", /reads for itself/],
    [{ chat: ["x-lattice-session"] }, "trustedHeaders.chat[0]", /reads for itself/],
    [{ chat: ["Cookie"] }, "trustedHeaders.chat[0]", /reads for itself/],
    [{ user: Array.from({ length: 9 }, (_, i) => `X-U-${i}`) }, "trustedHeaders.user", /8/],
    [{ users: ["X-Id"] }, "trustedHeaders.users", /unknown field/],
  ])("refuses trusted headers %j at %s", (trustedHeaders, path, message) => {
    const [issue] = issues({ trustedHeaders });
    expect(issue?.path).toBe(path);
    expect(issue?.message).toMatch(message);
  });

  it("takes a tenant's own trusted headers (LibreChat's templates), replacing the defaults", () => {
    const r = parsePolicy({ trustedHeaders: { user: ["X-LibreChat-User-Id"] } });
    expect(r.ok && r.policy.trustedHeaders).toEqual({
      user: ["X-LibreChat-User-Id"],
      chat: ["X-OpenWebUI-Chat-Id"],
      name: ["X-OpenWebUI-User-Name"],
    });
    expect(parsePolicy({ trustedHeaders: { user: [], chat: [] } }).ok).toBe(true);
  });

  it("refuses a tool key that is not <app>.<functionality>", () => {
    expect(issues({ tools: { send: {} } })[0]?.path).toBe("tools.send");
  });

  it("refuses wrong types and values of the scalar settings", () => {
    expect(issues({ onViolation: "warn" })[0]?.path).toBe("onViolation");
    expect(issues({ selfCorrection: 2 })[0]?.path).toBe("selfCorrection");
    expect(issues({ limits: { maxSteps: 0 } })[0]?.path).toBe("limits.maxSteps");
    expect(issues({ limits: { maxDepth: 1.5 } })[0]?.path).toBe("limits.maxDepth");
    expect(issues({ consent: { timeoutSeconds: "600" } })[0]?.path).toBe("consent.timeoutSeconds");
    expect(issues({ consent: { trustedApps: [1] } })[0]?.path).toBe("consent.trustedApps[0]");
  });

  it("refuses malformed model roles", () => {
    expect(issues({ models: { default: { provider: "anthropic", model: "m" } } })[0]?.path).toBe(
      "models.default.provider",
    );
    expect(issues({ models: { planner: { provider: "openai" } } })).toEqual([
      { path: "models.planner.model", message: "required field, expected string" },
    ]);
    expect(
      issues({ models: { qllm: { provider: "openai", model: "m", baseURL: "ftp://x" } } })[0]?.path,
    ).toBe("models.qllm.baseURL");
    expect(issues({ models: { chat: { provider: "openai", model: "m" } } })[0]?.path).toBe("models.chat");
  });

  it("refuses a __proto__ argument name, which a parsed object would silently drop", () => {
    expect(
      issues(JSON.parse('{"tools": {"a.b": {"args": {"__proto__": {"minIntegrity": "user"}}}}}')).length,
    ).toBe(1);
  });

  it("refuses non-objects", () => {
    expect(issues(null)).toHaveLength(1);
    expect(issues([1])).toHaveLength(1);
    expect(PolicySchema.safeParse("x").success).toBe(false);
  });
});

describe("parseNewPolicy: trustedValues never name an author (#43)", () => {
  const put = (paths: string[]) => parseNewPolicy({ tools: { "chat.read": { trustedValues: paths } } });

  it("refuses a path ending in or passing through each author name, saying why at the path", () => {
    for (const name of AUTHOR_NAMES) {
      for (const path of [name, `messages[].${name}`, `${name}[]`, `thread.${name}`, `${name}.email`]) {
        const r = put(["channels[]", path]);
        expect(r.ok, path).toBe(false);
        if (r.ok) continue;
        expect(r.details).toEqual([
          {
            path: 'tools["chat.read"].trustedValues[1]',
            message: expect.stringContaining("whoever injects content is one of those"),
          },
        ]);
        expect(r.details[0]?.message).toContain(`"${name}"`);
      }
    }
  });

  it("refuses `messages[].sender` and `from`, however spelt; accepts `contacts[].email` and the rest", () => {
    const refused = [
      "messages[].sender",
      "from",
      "Sender",
      "replyTo",
      "reply-to",
      "mail.From",
      "messages[].sender.email",
    ];
    for (const path of refused) expect(put([path]).ok, path).toBe(false);
    for (const path of [
      "contacts[].email",
      "channels[]",
      "users[]",
      "[]",
      "events[].id",
      "senders",
      "sent_to",
    ])
      expect(put([path]).ok, path).toBe(true);
  });

  it("control: a stored document with such a path still parses (its path vouches nothing at run time)", () => {
    const stored = parsePolicy({ tools: { "chat.read": { trustedValues: ["messages[].sender"] } } });
    expect(stored.ok).toBe(true);
    const answer = { messages: [{ sender: "eve@evil.test" }], contacts: [{ email: "dana@corp.example" }] };
    expect(trustedLeaves(answer, ["messages[].sender"])).toEqual([]);
    expect(trustedLeaves(answer, ["contacts[].email", "messages[].sender"])).toEqual(["dana@corp.example"]);
  });
});
