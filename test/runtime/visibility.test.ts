/**
 * What later planners see must not depend on runtime data: which artifacts a query leaves, and
 * their metadata, are a function of the plan alone. Two runs of one plan over different tool
 * answers must give the next query's planner the very same context.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ArtifactMetadata, ServingAppInfo } from "../../src/contracts.ts";
import {
  type ArtifactDraft,
  advanceQuery,
  defencesOf,
  loadQuery,
  planQuery,
  type QueryPorts,
  StepFailure,
  storedContext,
} from "../../src/runtime/index.ts";
import { plannerMessages } from "../../src/runtime/planner.ts";
import { cond, display, eq, lit, loop, plan, ref, tool } from "../policy/builders.ts";
import { policy } from "../policy/fixtures.ts";
import { MemoryJournal } from "./kit.ts";

const open = { type: "object" };
const app = (name: string, fns: string[]): ServingAppInfo => ({
  appId: `app_${name}`,
  name,
  version: 1,
  clearance: "confidential",
  manifest: {
    name,
    description: name,
    version: "1",
    endpoint: "https://x.test",
    functionalities: fns.map((fn) => ({
      name: fn,
      description: fn,
      request: open,
      response: open,
      irreversible: false,
      output: { confidentiality: "internal" },
    })),
  },
  bindings: {},
});
const APPS = [app("notes", ["list"]), app("contacts", ["lookup"]), app("mail", ["search"])];
const QUERY = "check my notes";

/** A plan whose shape depends on data: a branch on a note's flag, a loop over its items. */
const PLAN = plan(
  tool("n", "notes.list", {}),
  cond(
    eq(ref("n", "flag"), lit("yes")),
    [tool("a", "contacts.lookup", { name: lit("my notes") })],
    [tool("b", "mail.search", { query: lit("my notes") })],
  ),
  loop(ref("n", "items"), "x", [tool("c", "contacts.lookup", { name: ref("x") })], ref("c"), "all"),
  {
    kind: "qllm",
    out: "s",
    inputs: { n: ref("n") },
    prompt: "check",
    schema: { type: "object" },
    intent: "i",
    semantics: "s",
  },
  display(ref("s")),
);

/** Runs PLAN to its end over the given notes and returns what it leaves as artifacts. */
async function run(notes: unknown, qllmAnswer: unknown, failLookups = false): Promise<ArtifactDraft[]> {
  const p = policy({ planning: { mode: "apps" }, consent: { dataShare: false } });
  const planned = await planQuery({
    query: QUERY,
    earlierQueries: [],
    catalog: [],
    apps: APPS,
    artifacts: [],
    policy: p,
    defences: defencesOf({}),
    roles: ["member"],
    model: async () => ({ text: JSON.stringify(PLAN), tokens: 0 }),
  });
  if (planned.state !== "running") throw new Error(`not planned: ${JSON.stringify(planned)}`);
  const query = loadQuery({
    text: QUERY,
    plan: JSON.stringify(planned.plan),
    context: storedContext(planned.context),
  });
  const journal = new MemoryJournal();
  const ports: QueryPorts = {
    audit: () => {},
    standing: async () => null,
    standingRules: async () => [],
    authorization: async () => ({ authorized: true as const }),
    consent: () => null,
    record: journal,
    tool: async (call) => {
      // A hostile app may fail on purpose, to signal that its branch ran.
      const { tool } = call.target;
      if (failLookups && tool === "contacts.lookup") throw new StepFailure("app_error", "refused");
      const { name } = call.request as { name?: unknown };
      return { value: tool === "notes.list" ? notes : { email: `${String(name)}@x` } };
    },
    qllm: async () => qllmAnswer,
    retrieve: async () => null,
  };
  for (let i = 0; i < 50; i++) {
    const step = await advanceQuery({ queryId: "q1", query, journal: journal.entries, ports });
    if (step.next === "done" || step.next === "failed") return step.artifacts;
    if (step.next !== "continue") throw new Error(`stopped: ${JSON.stringify(step)}`);
  }
  throw new Error("did not finish");
}

/** What the next query's planner reads, given the artifacts a run left (stored as the hub stores them). */
function nextContext(drafts: ArtifactDraft[]): string {
  const artifacts: ArtifactMetadata[] = drafts.map((d) => ({
    ...d,
    schema: d.schema ?? null,
    id: `art_${d.name}`,
    query: QUERY,
    sessionId: "s",
    queryId: "q1",
    plannedIn: "apps",
    createdAt: new Date().toISOString(),
  }));
  return JSON.stringify(
    plannerMessages({
      mode: "apps",
      query: "next",
      tools: [],
      appDescriptions: {},
      artifacts,
      earlierQueries: [QUERY],
    }),
  );
}

describe("artifact visibility", () => {
  it("keeps only the plan's top-level outputs, whichever branch ran", async () => {
    const yes = await run({ flag: "yes", items: ["ann"] }, { v: 1 });
    const no = await run({ flag: "no", items: [] }, { v: 2 });
    expect(yes.map((d) => d.name)).toEqual(["n", "all", "s"]);
    expect(no.map((d) => d.name)).toEqual(yes.map((d) => d.name));
  });

  it("gives the next planner the same context for any tool answers (property)", async () => {
    const notes = fc.record({
      flag: fc.constantFrom("yes", "no", "maybe"),
      items: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(notes, notes, fc.jsonValue(), fc.jsonValue(), async (a, b, qa, qb) => {
        expect(nextContext(await run(a, qa))).toBe(nextContext(await run(b, qb)));
      }),
      { numRuns: 60 },
    );
  });

  it("leaves the same metadata when an app fails on purpose inside one branch", async () => {
    const failed = await run({ flag: "yes", items: [] }, { v: 1 }, true);
    const completed = await run({ flag: "no", items: [] }, { v: 1 }, true);
    expect(failed.map((d) => d.name)).toEqual(["n", "all", "s"]);
    expect(failed.find((d) => d.name === "s")?.value).toBeNull(); // never produced: a placeholder
    expect(nextContext(failed)).toBe(nextContext(completed));
  });

  it("control: the values themselves differ between such runs (the property is not vacuous)", async () => {
    const yes = await run({ flag: "yes", items: ["ann"] }, { v: 1 });
    const no = await run({ flag: "no", items: [] }, { v: 2 });
    expect(JSON.stringify(yes.map((d) => d.value))).not.toBe(JSON.stringify(no.map((d) => d.value)));
  });
});
