/**
 * Queries per second across concurrent sessions. A burst of the same number of one-tool-step queries
 * is spread over 1, 4, 16 … sessions (each of its own user, so each has its own HubDO, SpokeDO and
 * vault) and submitted at once; throughput = queries / (last hub finish − first send). Completion
 * times come from the hub's query_finished timestamps, so the waiting client can poll lazily (one
 * GET at a time) and barely load the runtime it is measuring.
 */
import { ask, finish, openSession, type Tenant, type Timed } from "./client.ts";
import { overheadTag } from "./plans.ts";
import { round, type Summary, summarize } from "./stats.ts";

export interface ThroughputConfig {
  queries: number;
  sessions: readonly number[];
}

export interface ThroughputRow {
  sessions: number;
  queries: number;
  wallMs: number;
  qps: number;
  /** Per query, send → hub finish, including time queued behind others. */
  latency: Summary;
  /** The ceiling: plain authenticated reads per second with as many clients (the user's grants). */
  readQps: number;
}

const LAZY_POLL_MS = 100;

export async function measureThroughput(t: Tenant, cfg: ThroughputConfig): Promise<ThroughputRow[]> {
  const text = overheadTag("tool", 1);
  // One unmeasured burst first: the first one pays for compiling the code paths (JIT), not the load.
  await burst(t, text, "warm", Math.min(4, cfg.queries), cfg.queries);
  const rows: ThroughputRow[] = [];
  for (const [run, c] of cfg.sessions.entries()) rows.push(await burst(t, text, String(run), c, cfg.queries));
  return rows;
}

async function burst(
  t: Tenant,
  text: string,
  run: string,
  c: number,
  queries: number,
): Promise<ThroughputRow> {
  const sids = await Promise.all(Array.from({ length: c }, (_, i) => openSession(t, `burst-${run}-${i}`)));
  // Warm each session's objects (HubDO, SpokeDO, vault) first: the burst measures steady state.
  await Promise.all(sids.map(async (sid) => finish(t, sid, await ask(t, sid, text), LAZY_POLL_MS, 300_000)));
  const assigned = Array.from({ length: queries }, (_, i) => sids[i % c]!);
  const started = await Promise.all(assigned.map(async (sid) => ({ sid, ...(await ask(t, sid, text)) })));
  const done: Timed[] = [];
  // One at a time, in submission order: the earliest unfinished query is polled until it is done.
  for (const s of started) done.push(await finish(t, s.sid, s, LAZY_POLL_MS, 300_000));
  const first = Math.min(...done.map((q) => q.sentAt));
  const last = Math.max(...done.map((q) => q.finishedAt));
  const wallMs = last - first;
  return {
    sessions: c,
    queries,
    wallMs,
    qps: round((queries * 1000) / wallMs, 1),
    latency: summarize(done.map((q) => q.finishedAt - q.sentAt)),
    readQps: await readThroughput(t, c, queries * 4),
  };
}

/** `total` reads of one user's grants by `c` concurrent clients (each its own user): reads per second. */
async function readThroughput(t: Tenant, c: number, total: number): Promise<number> {
  const read = (i: number) =>
    fetch(`${t.api}/v1/users/reader-${i}/grants`, {
      headers: { Authorization: `Bearer ${t.frontend}` },
    }).then((r) => r.text());
  await Promise.all(Array.from({ length: c }, (_, i) => read(i))); // warm each user's object
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: c }, async (_, i) => {
      while (next < total) {
        next++;
        await read(i);
      }
    }),
  );
  return round((total * 1000) / (Date.now() - started), 1);
}
