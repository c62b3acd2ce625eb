/**
 * Planner prompt growth with the catalog (issue #16 part 4): synthetic catalogs of 10, 100 and 1,000
 * entries planned through the real planQuery (catalog mode; a scripted model double records what it
 * is sent and answers a small plan, which is validated and verified), tokens counted with
 * gpt-tokenizer (o200k_base, as bench/security counts them), planning timed.
 *
 *   node bench/perf/catalog-growth.ts            # before and after; writes bench/results/catalog-growth.json
 *   node bench/perf/catalog-growth.ts --legacy   # only "before"
 *   node bench/perf/catalog-growth.ts --no-write # print only
 *
 * "Before" is the old message builder (every entry's JSON Schemas verbatim, every earlier query the
 * policy keeps, in full), copied here so its figure stays reproducible; around it, planningOf and
 * plan are the real code. Its tokens equal those measured on the unmodified tree (BASELINE below).
 */
import { writeFileSync } from "node:fs";
import { countTokens } from "gpt-tokenizer";
import type { CatalogEntry } from "../../src/apps/catalog.ts";
import type { ServingAppInfo } from "../../src/contracts.ts";
import { planJsonSchema } from "../../src/policy/index.ts";
import { selectTools } from "../../src/runtime/catalog-select.ts";
import { defencesOf, planQuery } from "../../src/runtime/index.ts";
import type { PlannerMessage, PlannerModel } from "../../src/runtime/planner.ts";
import { plan, plannerMessages, recentQueries } from "../../src/runtime/planner.ts";
import { type PlannerTool, planningOf } from "../../src/runtime/snapshot.ts";
import { ARTIFACTS, appsOf, catalogOf, EARLIER, PLAN, POLICY, QUERY } from "./catalog-synth.ts";
import { round } from "./stats.ts";

const SIZES = [10, 100, 1000];
const OUT = "bench/results/catalog-growth.json";
/** Measured with the unmodified tree (before any change for part 4): prompt tokens, planning ms (median). */
const BASELINE = { 10: [3513, 0.36], 100: [28216, 1.14], 1000: [272506, 49.33] } as const;

/** The old catalog-mode message builder, as it produced its messages. */
function legacyMessages(tools: readonly PlannerTool[], earlier: readonly string[]): PlannerMessage[] {
  const artifacts = ARTIFACTS.map(({ id, name, schema, intent, semantics, query }) => ({
    id,
    name,
    schema,
    intent,
    semantics,
    query,
  }));
  const system = `You are the planner of Lattice. Write ONE complete plan, as JSON, for the user's query, before anything runs.
Use only the functionalities listed (by their catalog name; the system picks the app that serves each) and only the artifacts listed (retrieve by id).
You never see tool results: later steps refer to earlier results by name ({"ref": name, "path": [...]}).
Use a "qllm" step to read, summarise, extract or compute from data; give it a self-contained prompt and an object JSON Schema.
Show the user what they asked for with "display" steps.`;
  const context = JSON.stringify({ functionalities: tools, artifacts, earlierQueries: earlier });
  return [
    { role: "system", content: system },
    { role: "user", content: `Context (functionalities, saved artifacts, earlier queries):\n${context}` },
    { role: "user", content: QUERY },
  ];
}

async function planOnce(catalog: CatalogEntry[], apps: ServingAppInfo[], legacy: boolean) {
  let sent: PlannerMessage[] = [];
  const model: PlannerModel = async (messages) => {
    sent = messages;
    return { text: PLAN, tokens: 0 };
  };
  const start = performance.now();
  let state: string;
  if (legacy) {
    const { snapshot, tools } = planningOf({
      policy: POLICY,
      catalog,
      apps,
      artifacts: ARTIFACTS,
      allowed: null,
    });
    const messages = legacyMessages(tools, EARLIER.slice(-POLICY.planning.earlierQueries));
    state = (await plan({ query: QUERY, policy: POLICY, snapshot, messages, model })).state;
  } else {
    const input = {
      query: QUERY,
      earlierQueries: EARLIER,
      catalog,
      apps,
      artifacts: ARTIFACTS,
      policy: POLICY,
    };
    state = (await planQuery({ ...input, defences: defencesOf({}), roles: ["member"], model })).state;
  }
  return { ms: performance.now() - start, state, sent };
}

const tokensOf = (messages: readonly PlannerMessage[]) =>
  messages.reduce((n, m) => n + countTokens(m.content), 0) + 4 * messages.length;
const responseFormat = {
  type: "json_schema",
  json_schema: { name: "plan", schema: planJsonSchema(), strict: false },
};
const SCHEMA_TOKENS = countTokens(JSON.stringify(responseFormat));
/** The upper median, as this script has always reported (stats.ts's nearest-rank p50 is the lower one). */
const median = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);

interface Row {
  entries: number;
  shown: number;
  promptTokens: number;
  withPlanSchema: number;
  planningMs: number;
  outcome: string;
}

async function measure(legacy: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of SIZES) {
    const catalog = catalogOf(size);
    const apps = appsOf(catalog);
    const times: number[] = [];
    let last = await planOnce(catalog, apps, legacy); // warm-up
    for (let i = 0; i < (size >= 1000 ? 15 : 60); i++) {
      last = await planOnce(catalog, apps, legacy);
      times.push(last.ms);
    }
    const context = last.sent[1]?.content ?? "";
    // Old: `"tool":"name"`; signatures: `name(`.
    const shown = catalog.filter(
      (e) => context.includes(`"tool":"${e.name}"`) || context.includes(`${e.name}(`),
    );
    const promptTokens = tokensOf(last.sent);
    rows.push({
      entries: size,
      shown: shown.length,
      promptTokens,
      withPlanSchema: promptTokens + SCHEMA_TOKENS,
      planningMs: median(times),
      outcome: last.state,
    });
  }
  return rows;
}

/** Where the new planning time goes at one size (median ms): the rest is validation and verification. */
function parts(size: number): Record<string, number> {
  const catalog = catalogOf(size);
  const apps = appsOf(catalog);
  const ms: Record<string, number[]> = { snapshot: [], selection: [], messages: [] };
  for (let i = 0; i < 15; i++) {
    let t = performance.now();
    const { tools } = planningOf({ policy: POLICY, catalog, apps, artifacts: ARTIFACTS, allowed: null });
    ms.snapshot!.push(performance.now() - t);
    t = performance.now();
    const earlier = recentQueries(EARLIER, POLICY.planning.earlierQueries);
    const shown = selectTools(tools, QUERY, earlier.queries);
    ms.selection!.push(performance.now() - t);
    t = performance.now();
    const base = { mode: "catalog" as const, query: QUERY, appDescriptions: {}, artifacts: ARTIFACTS };
    plannerMessages({
      ...base,
      tools: shown.tools,
      earlierQueries: earlier.queries,
      earlierOmitted: earlier.omitted,
    });
    ms.messages!.push(performance.now() - t);
  }
  return Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
}

function table(title: string, rows: readonly Row[]): void {
  console.log(`\n${title}\n  entries  shown  prompt tokens  +plan schema  planning ms  outcome`);
  for (const r of rows) {
    const cells = [r.entries, r.shown, r.promptTokens, r.withPlanSchema, r.planningMs].map(String);
    const widths = [9, 6, 14, 13, 12];
    console.log(`${cells.map((c, i) => c.padStart(widths[i]!)).join(" ")}  ${r.outcome}`);
  }
}

const flags = new Set(process.argv.slice(2));
const before = await measure(true);
table("before: raw JSON Schemas, every kept earlier query in full (old message builder)", before);
for (const r of before) {
  if (r.promptTokens !== BASELINE[r.entries as keyof typeof BASELINE][0])
    console.warn(
      `! ${r.entries} entries: ${r.promptTokens} tokens, the unmodified tree gave ${BASELINE[r.entries as keyof typeof BASELINE][0]}`,
    );
}
if (!flags.has("--legacy")) {
  const after = await measure(false);
  table("after: typed signatures, bounded session, selection above 60 entries (planQuery now)", after);
  const breakdown = Object.fromEntries(SIZES.map((n) => [n, parts(n)]));
  console.log("\nafter, median ms by part:", JSON.stringify(breakdown));
  const ratio = (i: number) => (after[i]!.promptTokens / before[i]!.promptTokens).toFixed(3);
  console.log(`after/before prompt tokens: ${SIZES.map((n, i) => `${n}: ${ratio(i)}`).join(", ")}`);
  if (!flags.has("--no-write")) {
    const baseline = Object.entries(BASELINE).map(([n, [tokens, ms]]) => ({
      entries: Number(n),
      promptTokens: tokens,
      planningMs: ms,
    }));
    const meta = {
      generatedAt: new Date().toISOString(),
      query: QUERY,
      earlierQueries: EARLIER.length,
      artifacts: ARTIFACTS.length,
    };
    const result = {
      ...meta,
      planSchemaTokens: SCHEMA_TOKENS,
      baselineUnmodifiedTree: baseline,
      before,
      after,
      afterPartsMs: breakdown,
    };
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${OUT}`);
  }
}
