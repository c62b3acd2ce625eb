/** What the planner is sent: compact signatures, a bounded session history, the query alone last. */
import { describe, expect, it } from "vitest";
import type { ArtifactMetadata } from "../../src/contracts.ts";
import { plannerMessages, recentQueries } from "../../src/runtime/planner.ts";
import type { PlannerTool } from "../../src/runtime/snapshot.ts";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const TOOLS: PlannerTool[] = [
  {
    tool: "contacts.lookup",
    description: "Look up a contact.",
    request: obj({ name: { type: "string" } }, ["name"]),
    response: obj({ email: { type: "string" } }, ["email"]),
  },
  {
    tool: "mail.send",
    description: "Send an email.",
    request: obj({ to: { type: "string", format: "email" }, body: { type: "string" } }, ["to", "body"]),
    response: obj({ id: { type: "string" } }, ["id"]),
    irreversible: true,
  },
];
const ARTIFACT: ArtifactMetadata = {
  id: "art_1",
  name: "sum",
  schema: obj({ total: { type: "number" } }, ["total"]),
  intent: "total the invoices",
  semantics: "sum of invoices",
  query: "Sum my invoices",
  label: { confidentiality: "internal", integrity: "untrusted" },
  sessionId: "s",
  queryId: "q",
  plannedIn: "catalog",
  createdAt: "2026-01-01T00:00:00.000Z",
};

/** The context as the bench's obedient double reads it: JSON after the first line of the first user message. */
function context(messages: ReturnType<typeof plannerMessages>): Record<string, unknown> {
  const text = messages.filter((m) => m.role === "user")[0]!.content;
  return JSON.parse(text.slice(text.indexOf("\n") + 1)) as Record<string, unknown>;
}

describe("plannerMessages", () => {
  const base = { query: "Email my accountant", artifacts: [ARTIFACT], earlierQueries: ["Sum my invoices"] };

  it("catalog mode: one signature per entry, no raw JSON Schema, the query alone last", () => {
    const messages = plannerMessages({ ...base, mode: "catalog", tools: TOOLS, appDescriptions: {} });
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(messages[2]!.content).toBe("Email my accountant");
    expect(context(messages)).toEqual({
      functionalities: [
        "contacts.lookup(name: string) -> {email: string} — Look up a contact.",
        "mail.send(to: string(email), body: string) -> {id: string} [irreversible] — Send an email.",
      ],
      artifacts: [
        {
          id: "art_1",
          name: "sum",
          schema: "{total: number}",
          intent: "total the invoices",
          semantics: "sum of invoices",
          query: "Sum my invoices",
        },
      ],
      earlierQueries: ["Sum my invoices"],
    });
    expect(JSON.stringify(messages)).not.toMatch(/"(properties|additionalProperties|required)"/);
  });

  it("apps mode: each app's description once, its tools as signatures, no catalog key", () => {
    const messages = plannerMessages({
      ...base,
      mode: "apps",
      tools: TOOLS,
      appDescriptions: { contacts: "Your address book.", mail: "Your mailbox." },
    });
    const ctx = context(messages);
    expect("functionalities" in ctx).toBe(false);
    expect(ctx.apps).toEqual([
      {
        app: "contacts",
        description: "Your address book.",
        tools: [expect.stringMatching(/^contacts\.lookup\(/)],
      },
      { app: "mail", description: "Your mailbox.", tools: [expect.stringMatching(/^mail\.send\(/)] },
    ]);
  });

  it("says when older queries were left out, and when the list is a selection", () => {
    const messages = plannerMessages({
      ...base,
      mode: "catalog",
      tools: TOOLS,
      appDescriptions: {},
      earlierOmitted: 3,
      selectedOf: 500,
    });
    expect(messages[1]!.content.split("\n")[0]).toBe(
      "Context (functionalities: the 2 of the catalog's 500 that match the query, saved artifacts, earlier queries, older ones omitted):",
    );
    expect(context(messages).earlierQueriesOmitted).toBe(3);
  });
});

describe("recentQueries", () => {
  it("keeps the newest the policy allows, in order, and counts the rest", () => {
    expect(recentQueries(["a", "b", "c", "d"], 2)).toEqual({ queries: ["c", "d"], omitted: 2 });
    expect(recentQueries(["a", "b"], 10)).toEqual({ queries: ["a", "b"], omitted: 0 });
    expect(recentQueries(["a", "b"], 0)).toEqual({ queries: [], omitted: 0 });
  });

  it("cuts each to 300 characters and all to about 1,500, newest first", () => {
    const long = (c: string) => c.repeat(1000);
    const { queries, omitted } = recentQueries(
      [long("a"), long("b"), ...Array.from({ length: 6 }, (_, i) => long(`${i}`))],
      10,
    );
    expect(queries.every((q) => q.length <= 300 && q.endsWith("…"))).toBe(true);
    expect(queries.join("").length).toBeLessThanOrEqual(1500);
    expect(queries.at(-1)!.startsWith("5")).toBe(true);
    expect(omitted).toBe(8 - queries.length);
  });

  it("never splits a surrogate pair", () => {
    const [cut] = recentQueries([`${"x".repeat(298)}😀😀`], 1).queries;
    expect(cut).toBe(`${"x".repeat(298)}…`);
  });
});

describe("the planner is told to compare without a reader (#43)", () => {
  const system = (mode: "catalog" | "apps") =>
    plannerMessages({
      mode,
      query: "q",
      tools: TOOLS,
      appDescriptions: {},
      artifacts: [],
      earlierQueries: [],
    })[0]?.content ?? "";

  it("names the select step for picks by a field, in both modes", () => {
    for (const mode of ["catalog", "apps"] as const) {
      expect(system(mode)).toContain('use a "select" step, never a "qllm"');
    }
  });

  it("in catalog mode, says how to select over a providers: all result; apps mode has no fan-out to mention", () => {
    expect(system("catalog")).toContain('"select" over it by ["value", <field>]');
    expect(system("apps")).not.toContain('["value", <field>]');
  });
});
