/**
 * Operator overhead per query. The model is the zero-latency scripted one, so a query's end-to-end
 * time is operator work plus app-call time; app-call time is measured on its own by calling the same
 * demo app directly from Node with a valid signature, and subtracted. Plans of 0, 1, 4, 8 tool steps
 * give the fixed cost (the intercept) and the cost per step (the slope); plans of q-LLM steps, which
 * call no app at all, give the per-step cost of hub + spoke with no external time in it.
 */
import { signLatticeRequest } from "../../examples/apps/src/signature.ts";
import { ask, finish, openSession, type Tenant, type Timed } from "./client.ts";
import { overheadTag, type StepKind } from "./plans.ts";
import { fitLine, round, type Summary, sleep, summarize } from "./stats.ts";

export interface OverheadConfig {
  toolSizes: readonly number[];
  qllmSizes: readonly number[];
  /** Measured rounds; each round runs every configuration once. */
  runs: number;
  /** Unmeasured rounds first (JIT, first objects). */
  warmup: number;
  /** No new round starts after this long: the bench stays bounded on a slow machine. */
  budgetMs: number;
  /** Queries per session before a fresh one (a session's history goes into its planner context). */
  perSession: number;
}

/** Where a query's time went, from the hub's own event timestamps (ms). */
export interface Breakdown {
  /** POST sent → query recorded: HTTP, key check, HubDO start. */
  accept: number;
  /** Recorded → plan verified: first alarm, planner context (tenant, vault), model, validate, verify. */
  plan: number;
  /** Inside tool / q-LLM calls: hub → spoke RPC, signing, app HTTP and work, schema checks. */
  inCalls: number;
  /** The rest, between plan and finish: alarm hops between steps, replays, gates, artifact writes. */
  between: number;
}

export interface OverheadRow {
  kind: StepKind;
  steps: number;
  e2e: Summary;
  /** Poll-observed latency (an upper bound: includes up to one poll interval and one GET). */
  observed: Summary;
  breakdown: Breakdown;
}

export interface OverheadResult {
  rows: OverheadRow[];
  /** Direct signed calls from Node to the demo app: app work + loopback HTTP, no Lattice. */
  appDirect: Summary;
  /**
   * Context for the per-step cost: an API request that reads one object (the user's grants) vs one
   * that writes one row and so waits for the commit (opening a session). Their difference is roughly
   * what each durable step boundary costs: a Durable Object holds outgoing messages until its writes
   * are committed, and the operator writes before every call.
   */
  readRequest: Summary;
  writeRequest: Summary;
  fits: Record<StepKind, { slopeMs: number; interceptMs: number }>;
}

const POLL_MS = 20;

export async function measureOverhead(t: Tenant, cfg: OverheadConfig): Promise<OverheadResult> {
  const configs: Array<{ kind: StepKind; steps: number; sid: string; timed: Timed[] }> = [
    ...cfg.toolSizes.map((n) => ({ kind: "tool" as const, steps: n, sid: "", timed: [] })),
    ...cfg.qllmSizes.map((n) => ({ kind: "qllm" as const, steps: n, sid: "", timed: [] })),
  ];
  const probes = { app: [] as number[], read: [] as number[], write: [] as number[] };
  const deadline = Date.now() + cfg.budgetMs;
  // Round-robin: every round runs each configuration once, plus the probes, so that a burst of load
  // from elsewhere on the machine falls on all of them alike and the comparisons stay fair.
  for (let round = 0; round < cfg.warmup + cfg.runs && Date.now() < deadline; round++) {
    const measured = round >= cfg.warmup;
    for (const c of configs) {
      if (round % cfg.perSession === 0) c.sid = await openSession(t, `overhead-${c.kind}-${c.steps}`);
      const q = await finish(t, c.sid, await ask(t, c.sid, overheadTag(c.kind, c.steps)), POLL_MS);
      if (measured) c.timed.push(q);
      // A short pause so one query's trailing writes (audit, alarms) do not overlap the next one.
      await sleep(5);
    }
    const app = await appDirect(t, round);
    const read = await timeRequest(() =>
      fetch(`${t.api}/v1/users/probe/grants`, { headers: { Authorization: `Bearer ${t.frontend}` } }),
    );
    const write = await timeRequest(() =>
      fetch(`${t.api}/v1/sessions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${t.frontend}`, "Content-Type": "application/json" },
        body: JSON.stringify({ userId: "probe" }),
      }),
    );
    if (measured) {
      probes.app.push(app);
      probes.read.push(read);
      probes.write.push(write);
    }
  }
  if (!configs[0]!.timed.length) throw new Error("no measured round within the time budget");
  const rows: OverheadRow[] = configs.map((c) => ({
    kind: c.kind,
    steps: c.steps,
    e2e: summarize(c.timed.map((q) => q.finishedAt - q.sentAt)),
    observed: summarize(c.timed.map((q) => q.observedMs)),
    breakdown: medianBreakdown(c.timed),
  }));
  const lineOf = (kind: StepKind) => {
    const points = rows
      .filter((r) => r.kind === kind || r.steps === 0)
      .map((r) => [r.steps, r.e2e.p50] as const);
    const line = fitLine(points);
    return { slopeMs: line.slope, interceptMs: line.intercept };
  };
  return {
    rows,
    appDirect: summarize(probes.app),
    readRequest: summarize(probes.read),
    writeRequest: summarize(probes.write),
    fits: { tool: lineOf("tool"), qllm: lineOf("qllm") },
  };
}

function breakdownOf(q: Timed): Breakdown {
  const at = (e: { at: string }) => Date.parse(e.at);
  const created = Date.parse(q.query.createdAt);
  const planned =
    q.query.trace.find((e) => e.type === "planned") ?? q.query.trace.find((e) => e.type === "planning");
  let inCalls = 0;
  let started: number | null = null;
  for (const e of q.query.trace) {
    if (e.type === "step_started") started = at(e);
    if (e.type === "step_finished" && started !== null) {
      inCalls += at(e) - started;
      started = null;
    }
  }
  const plan = planned ? at(planned) - created : 0;
  return {
    accept: created - q.sentAt,
    plan,
    inCalls,
    between: q.finishedAt - created - plan - inCalls,
  };
}

function medianBreakdown(timed: Timed[]): Breakdown {
  const parts = timed.map(breakdownOf);
  const med = (k: keyof Breakdown) => summarize(parts.map((p) => p[k])).p50;
  return { accept: med("accept"), plan: med("plan"), inCalls: med("inCalls"), between: med("between") };
}

/** Client-side latency of one request over loopback (performance.now in Node). */
async function timeRequest(send: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await send();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`probe request failed: ${res.status}`);
  return round(performance.now() - t0, 3);
}

/** The same call a tool step makes (contacts.lookup), signed with the app's secret, straight from Node. */
async function appDirect(t: Tenant, round: number): Promise<number> {
  const body = JSON.stringify({ name: "accountant" });
  const key = `bench-direct-${Date.now()}-${round}`;
  const path = `/w/${t.world}/contacts/lookup`;
  const signed = { method: "POST", path, idempotencyKey: key, callId: null, body };
  const headers = {
    "Content-Type": "application/json",
    "X-Lattice-Signature": await signLatticeRequest(t.secrets.contacts!, signed),
    "X-Lattice-Idempotency-Key": key,
  };
  return timeRequest(() =>
    fetch(`${t.apps}/w/${t.world}/contacts/lookup`, { method: "POST", headers, body }),
  );
}
