/**
 * Durable Object calls per query, by class: the API counts every stub call when LATTICE_COUNT_CALLS
 * is on (src/objects/call-counts.ts; the bench's workerd sets it). Each query is asked, left to
 * finish, and read once; the reads' own calls (measured alone) are taken off, so a row is what the
 * query itself cost: the POST that starts it and everything the hub, spokes and tenant do for it.
 */
import { ask, finish, must, openSession, type Tenant } from "./client.ts";
import { overheadTag } from "./plans.ts";
import { round, sleep } from "./stats.ts";

export interface CallsRow {
  query: string;
  /** Calls per query, by object class. */
  byClass: Record<string, number>;
  /** Calls per query, by `Class.method`. */
  byMethod: Record<string, number>;
  total: number;
}

const SETTLE_MS = 1500;

export async function counts(t: Tenant): Promise<Record<string, number>> {
  return (
    await must<{ calls: Record<string, number> }>(t.api, t.operator, "GET", "/v1/operator/metrics/calls")
  ).calls;
}

export const minus = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]));

export async function measureCalls(t: Tenant, runs = 8): Promise<CallsRow[]> {
  const sid = await openSession(t, "calls");
  const kinds = [
    { query: "plan + display", text: overheadTag("tool", 0) },
    { query: "1 tool step", text: overheadTag("tool", 1) },
    { query: "4 tool steps", text: overheadTag("tool", 4) },
    { query: "4 q-LLM steps", text: overheadTag("qllm", 4) },
  ];
  // What one read of a finished query costs, to take off each row.
  const warm = await ask(t, sid, kinds[0]!.text);
  await finish(t, sid, warm, 50);
  const beforeReads = await counts(t);
  for (let i = 0; i < runs; i++) await finish(t, sid, warm, 50);
  const perRead = scale(minus(await counts(t), beforeReads), 1 / runs);
  const rows: CallsRow[] = [];
  for (const kind of kinds) {
    await finish(t, sid, await ask(t, sid, kind.text), 50); // warm this plan's path
    const before = await counts(t);
    for (let i = 0; i < runs; i++) {
      const started = await ask(t, sid, kind.text);
      await sleep(SETTLE_MS); // finished long before: one read sees it done
      await finish(t, sid, started, 50);
    }
    const spent = minus(scale(minus(await counts(t), before), 1 / runs), perRead);
    const byMethod = Object.fromEntries(
      Object.entries(spent)
        .map(([k, v]) => [k, round(v, 1)] as const)
        .filter(([, v]) => v > 0),
    );
    const byClass: Record<string, number> = {};
    for (const [k, v] of Object.entries(byMethod)) {
      const cls = k.split(".")[0]!;
      byClass[cls] = round((byClass[cls] ?? 0) + v, 1);
    }
    rows.push({
      query: kind.query,
      byClass,
      byMethod,
      total: round(
        Object.values(byMethod).reduce((a, b) => a + b, 0),
        1,
      ),
    });
  }
  return rows;
}

function scale(r: Record<string, number>, f: number): Record<string, number> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v * f]));
}
