/**
 * Artifact retrieval as one user's vault grows to 10,000 artifacts. The vault is filled through the
 * ordinary query path (a scripted plan of k q-LLM steps stores k new artifacts on completion), then
 * measured over HTTP at each size: the newest metadata page (what a planner and a UI read), the last
 * page (OFFSET paging), one artifact by id, a same-route baseline that touches no artifact (the
 * user's grants: same auth and vault object, tiny table), and a zero-step query, whose planning reads
 * the newest 100 metadata.
 */
import { ask, finish, must, openSession, putPolicy, type Tenant } from "./client.ts";
import { benchPolicy, type Entry, fillPlan, fillTag, overheadTag, SEED_TAG, seedPlan } from "./plans.ts";
import { round, type Summary, summarize } from "./stats.ts";

export interface ArtifactsConfig {
  sizes: readonly number[];
  /**
   * Artifacts stored per filling query (a plan of this many q-LLM steps, one alarm each). Every store
   * is a durable write the hub waits on at completion; ~200 keeps that final alarm to a few seconds
   * (in our runs a 450-write alarm of ~7 s made `wrangler dev`'s runtime exit).
   */
  perFill: number;
  runs: number;
  queryRuns: number;
}

export interface ArtifactsRow {
  artifacts: number;
  baseline: Summary;
  listFirst: Summary;
  listLast: Summary;
  getById: Summary;
  zeroStepQuery: Summary;
  /** Reading every metadata record, 500 per page. */
  fullScanMs: number;
  fillMs: number;
}

const USER = "vault-user";
const POLL_MS = 20;

interface ArtifactList {
  artifacts: Array<{ id: string }>;
  total: number;
}

export async function measureArtifacts(
  t: Tenant,
  cfg: ArtifactsConfig,
  baseEntries: readonly Entry[],
): Promise<ArtifactsRow[]> {
  const sid = await openSession(t, USER);
  const run = async (text: string) => finish(t, sid, await ask(t, sid, text), POLL_MS, 600_000);
  await putPolicy(t, benchPolicy([...baseEntries, { tag: SEED_TAG, plan: seedPlan() }]));
  await run(SEED_TAG);
  const rows: ArtifactsRow[] = [];
  let count = await total(t);
  for (const size of cfg.sizes) {
    const fillStart = Date.now();
    while (count < size) {
      const k = Math.min(cfg.perFill, size - count);
      // The newest artifact is always in the planner's snapshot (the newest 100), so a plan may retrieve it.
      const from = (await list(t, 1, 0)).artifacts[0]!.id;
      const tag = fillTag(k, from);
      await putPolicy(t, benchPolicy([...baseEntries, { tag, plan: fillPlan(k, from) }]));
      await run(tag);
      count = await total(t);
    }
    const fillMs = Date.now() - fillStart;
    const ids: string[] = [];
    const scanStart = performance.now();
    for (let offset = 0; offset < count; offset += 500)
      ids.push(...(await list(t, 500, offset)).artifacts.map((a) => a.id));
    const fullScanMs = round(performance.now() - scanStart);
    if (ids.length !== count) throw new Error(`listed ${ids.length} of ${count} artifacts`);
    const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
    // Back to the base script, so the zero-step query below is planned like every other.
    await putPolicy(t, benchPolicy(baseEntries));
    const zero: number[] = [];
    for (let i = 0; i < cfg.queryRuns + 2; i++) {
      const q = await run(overheadTag("tool", 0));
      if (i >= 2) zero.push(q.finishedAt - q.sentAt);
    }
    const routes = {
      baseline: () => `/v1/users/${USER}/grants`,
      listFirst: () => `/v1/users/${USER}/artifacts?limit=100`,
      listLast: () => `/v1/users/${USER}/artifacts?limit=100&offset=${count - 100}`,
      getById: () => `/v1/users/${USER}/artifacts/${pick()}`,
    };
    const timed = await timeRoutes(t, cfg.runs, routes);
    rows.push({
      artifacts: count,
      ...timed,
      zeroStepQuery: summarize(zero),
      fullScanMs,
      fillMs,
    });
  }
  return rows;
}

async function list(t: Tenant, limit: number, offset: number): Promise<ArtifactList> {
  return must<ArtifactList>(
    t.api,
    t.frontend,
    "GET",
    `/v1/users/${USER}/artifacts?limit=${limit}&offset=${offset}`,
  );
}

async function total(t: Tenant): Promise<number> {
  return (await list(t, 1, 0)).total;
}

/**
 * Client-side latency of GETs over loopback (performance.now in Node), after one unmeasured round.
 * The routes take turns, so load from elsewhere on the machine falls on all of them alike.
 */
async function timeRoutes<K extends string>(
  t: Tenant,
  runs: number,
  routes: Record<K, () => string>,
): Promise<Record<K, Summary>> {
  const names = Object.keys(routes) as K[];
  const samples = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i <= runs; i++) {
    for (const name of names) {
      const path = routes[name]();
      const t0 = performance.now();
      const res = await fetch(`${t.api}${path}`, { headers: { Authorization: `Bearer ${t.frontend}` } });
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
      if (i > 0) samples[name].push(round(ms, 3));
    }
  }
  return Object.fromEntries(names.map((k) => [k, summarize(samples[k])])) as Record<K, Summary>;
}
