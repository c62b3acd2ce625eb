/**
 * `npm run bench:ab`: one change measured against the code before it, on a busy machine. Stack A is
 * bundled from the working tree when the script starts; it then waits (press Enter, or the file
 * named by --when exists) while you apply the change, and bundles stack B. Queries of each shape then
 * alternate between A and B, so a burst of load from elsewhere falls on both alike; the report is
 * each shape's per-step time from the hub's own timestamps (p50 of B ÷ p50 of A).
 *
 *   npm run bench:ab -- [--runs 30] [--when /tmp/ab-go]
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { ask, finish, openSession, putPolicy, setupTenant, type Tenant } from "./client.ts";
import { benchPolicy, overheadEntries, overheadTag, type StepKind } from "./plans.ts";
import { round, sleep, summarize } from "./stats.ts";
import { startWorkerd, type Workerd } from "./workerd.ts";

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "30" }, when: { type: "string" } },
});
const SHAPES: Array<[StepKind, number]> = [
  ["tool", 0],
  ["tool", 8],
  ["qllm", 8],
];

async function stack(name: string): Promise<{ w: Workerd; t: Tenant }> {
  console.log(`${name}: bundling and starting…`);
  const w = await startWorkerd();
  const t = await setupTenant(w, ["contacts"], `ab-${name}-${Date.now().toString(36)}`);
  await putPolicy(t, benchPolicy(overheadEntries([0, 8])));
  return { w, t };
}

async function waitForChange(): Promise<void> {
  if (args.when) {
    console.log(`waiting for ${args.when} to exist…`);
    while (!existsSync(args.when)) await sleep(500);
    return;
  }
  console.log("apply the change, then press Enter");
  await new Promise((resolve) => process.stdin.once("data", resolve));
}

/** ms from the query being recorded to its end, by the hub's clock: the API's HTTP stays out of it. */
async function once(t: Tenant, sid: string, kind: StepKind, n: number): Promise<number> {
  const q = await finish(t, sid, await ask(t, sid, overheadTag(kind, n)), 5);
  return q.finishedAt - Date.parse(q.query.createdAt);
}

const a = await stack("A");
await waitForChange();
const b = await stack("B");
try {
  const times: Record<string, { A: number[]; B: number[] }> = {};
  for (let run = 0; run < Number(args.runs) + 3; run++) {
    for (const [kind, n] of SHAPES) {
      const key = `${kind}×${n}`;
      times[key] ??= { A: [], B: [] };
      // Alternate which goes first, so neither always runs right after the other's trailing writes.
      const order = run % 2 ? ([b, a] as const) : ([a, b] as const);
      for (const s of order) {
        const sid = await openSession(s.t, `ab-${kind}-${n}-${run % 5}`);
        const ms = await once(s.t, sid, kind, n);
        if (run >= 3) times[key]![s === a ? "A" : "B"].push(ms);
        await sleep(5);
      }
    }
  }
  console.log("shape      A p50   B p50   B/A    (ms, query recorded → finished)");
  for (const [key, t] of Object.entries(times)) {
    const [pa, pb] = [summarize(t.A).p50, summarize(t.B).p50];
    console.log(
      `${key.padEnd(9)} ${String(pa).padStart(6)}  ${String(pb).padStart(6)}  ${round(pb / pa, 2)}`,
    );
  }
} finally {
  await Promise.all([a.w.stop(), b.w.stop()]);
}
