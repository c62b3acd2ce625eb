/**
 * A burst (issue #31): 256 one-tool-step queries sent at once over 64 users (each its own session,
 * so its own HubDO, SpokeDO and vault), every HTTP answer counted. Load may be shed (429, or 503,
 * with `Retry-After`, in the API's error shape); it may never fail: a dropped connection, any other
 * 5xx, a shed answer without `Retry-After`, or a query accepted (202) and then lost (gone, or never
 * ending) fails the bench. Each accepted query is then read until it ends, so "accepted" means run.
 */
import { counts, minus } from "./calls.ts";
import { openSession, type Tenant } from "./client.ts";
import { overheadTag } from "./plans.ts";
import { type Summary, sleep, summarize } from "./stats.ts";

export interface BurstConfig {
  users: number;
  perUser: number;
}

export interface BurstResult {
  users: number;
  queries: number;
  /** First send → last answer to the burst's POSTs. */
  submitMs: number;
  /** The POSTs' answers: HTTP status (with the error code when there is one) → count. */
  submitted: Record<string, number>;
  /** POSTs that got no HTTP answer at all (connection dropped or refused). */
  transportErrors: number;
  accepted: number;
  /** 429s and 503s that carried Retry-After (shedding, which is allowed). */
  shed: number;
  /** The polls' answers while waiting for the accepted queries to end, counted likewise. */
  polled: Record<string, number>;
  pollTransportErrors: number;
  /** Each accepted query's final state: completed, failed:<code>, lost (404), unfinished (timeout). */
  outcomes: Record<string, number>;
  /** Send → hub finish of the completed queries, including queueing. */
  latency: Summary;
  /**
   * Calls to the tenant's one object per accepted query over the whole burst (its polls included),
   * by method: the amortised figure issue #31 bounds at 0.1. Null when calls are not counted.
   */
  tenantCallsPerQuery: { total: number; byMethod: Record<string, number> } | null;
  /** Why the burst fails the bench; empty when it passes. */
  failures: string[];
  /** The first few answers that made it fail, as they came (status and body, or the error). */
  samples: string[];
}

const POLLERS = 16;
const POLL_MS = 200;
const END_WITHIN_MS = 300_000;
const GONE_AFTER_MS = 15_000;
const TERMINAL = new Set(["completed", "failed", "rejected", "awaiting_consent"]);

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  body: unknown;
  text: string;
}

/** One request; a transport error (no HTTP answer) is returned as an Error, never thrown. */
async function send(t: Tenant, method: string, path: string, body?: unknown): Promise<Answer | Error> {
  try {
    const res = await fetch(`${t.api}${path}`, {
      method,
      headers: { Authorization: `Bearer ${t.frontend}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const code = (parsed as { error?: { code?: string } } | null)?.error?.code ?? null;
    return { status: res.status, code, retryAfter: res.headers.get("Retry-After"), body: parsed, text };
  } catch (error) {
    const cause = (error as Error).cause;
    return new Error(`${(error as Error).message}${cause ? ` (${String(cause)})` : ""}`);
  }
}

const key = (a: Answer) => (a.code && a.status >= 400 ? `${a.status} ${a.code}` : String(a.status));
const isShed = (a: Answer) => (a.status === 429 || a.status === 503) && a.retryAfter !== null;
const bump = (counts: Record<string, number>, k: string) => {
  counts[k] = (counts[k] ?? 0) + 1;
};

export async function measureBurst(t: Tenant, cfg: BurstConfig): Promise<BurstResult> {
  const text = overheadTag("tool", 1);
  const failures = new Set<string>();
  const samples: string[] = [];
  const sample = (what: string) => {
    if (samples.length < 8) samples.push(what.slice(0, 400));
  };
  // Sessions are set up first (a few at a time): the burst is the queries, not the setup.
  const sids: string[] = [];
  for (let i = 0; i < cfg.users; i += 8) {
    const batch = Array.from({ length: Math.min(8, cfg.users - i) }, (_, j) => `burst-user-${i + j}`);
    sids.push(...(await Promise.all(batch.map((u) => openSession(t, u)))));
  }
  const assigned = Array.from({ length: cfg.users * cfg.perUser }, (_, i) => sids[i % cfg.users]!);

  const callsBefore = await counts(t).catch(() => null);
  // Every POST at once.
  const submitted: Record<string, number> = {};
  let transportErrors = 0;
  let shed = 0;
  const first = Date.now();
  const answers = await Promise.all(
    assigned.map(async (sid) => {
      const sentAt = Date.now();
      return { sid, sentAt, answer: await send(t, "POST", `/v1/sessions/${sid}/queries`, { text }) };
    }),
  );
  const submitMs = Date.now() - first;
  const accepted: Array<{ sid: string; qid: string; sentAt: number }> = [];
  for (const { sid, sentAt, answer } of answers) {
    if (answer instanceof Error) {
      transportErrors++;
      failures.add("a POST got no HTTP answer (connection dropped)");
      sample(`POST: ${answer.message}`);
      continue;
    }
    bump(submitted, key(answer));
    if (answer.status === 202) accepted.push({ sid, qid: (answer.body as { id: string }).id, sentAt });
    else if (isShed(answer)) shed++;
    else judge(answer, "POST", failures, sample);
  }

  // Each accepted query read until it ends, by a few pollers (lazily: the runtime is still busy).
  const polled: Record<string, number> = {};
  let pollTransportErrors = 0;
  const outcomes: Record<string, number> = {};
  const latencies: number[] = [];
  let nextIndex = 0;
  // A runtime that answers nothing for this long is gone (wrangler dev exited): waiting on is pointless.
  let lastAnswer = Date.now();
  const gone = () => Date.now() - lastAnswer > GONE_AFTER_MS;
  const poller = async () => {
    while (nextIndex < accepted.length && !gone()) {
      const q = accepted[nextIndex++]!;
      const deadline = q.sentAt + END_WITHIN_MS;
      for (;;) {
        const answer = await send(t, "GET", `/v1/sessions/${q.sid}/queries/${q.qid}`);
        if (answer instanceof Error) {
          pollTransportErrors++;
          failures.add("a poll got no HTTP answer (connection dropped)");
          sample(`GET: ${answer.message}`);
          if (gone()) {
            bump(outcomes, "unknown (runtime gone)");
            break;
          }
        } else {
          lastAnswer = Date.now();
          bump(polled, key(answer));
          if (answer.status === 404) {
            bump(outcomes, "lost");
            failures.add("an accepted query was lost (404)");
            break;
          }
          if (answer.status === 200) {
            const view = answer.body as {
              status: string;
              error: { code: string } | null;
              trace: Array<{ type: string; at: string }>;
            };
            if (TERMINAL.has(view.status)) {
              const outcome = view.status === "failed" ? `failed:${view.error?.code ?? "?"}` : view.status;
              bump(outcomes, outcome);
              const done = view.trace.findLast((e) => e.type === "query_finished");
              if (view.status === "completed" && done) latencies.push(Date.parse(done.at) - q.sentAt);
              break;
            }
          } else if (isShed(answer)) {
            await sleep(Math.min(5, Number(answer.retryAfter) || 1) * 1000);
            continue;
          } else judge(answer, "GET", failures, sample);
        }
        if (Date.now() > deadline) {
          bump(outcomes, "unfinished");
          failures.add(`an accepted query did not end within ${END_WITHIN_MS / 1000} s`);
          break;
        }
        await sleep(POLL_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: POLLERS }, poller));
  // Counts and audit rows still batched in the isolate go out within their bound (1 s, 200 ms).
  await sleep(1_500);
  const callsAfter = callsBefore && (await counts(t).catch(() => null));
  const unread = accepted.length - Object.values(outcomes).reduce((n, k) => n + k, 0);
  if (unread > 0) outcomes["unknown (runtime gone)"] = (outcomes["unknown (runtime gone)"] ?? 0) + unread;

  return {
    users: cfg.users,
    queries: assigned.length,
    submitMs,
    submitted,
    transportErrors,
    accepted: accepted.length,
    shed,
    polled,
    pollTransportErrors,
    outcomes,
    latency: summarize(latencies),
    tenantCallsPerQuery:
      callsBefore && callsAfter ? perQuery(minus(callsAfter, callsBefore), accepted.length) : null,
    failures: [...failures],
    samples,
  };
}

function perQuery(spent: Record<string, number>, queries: number) {
  const byMethod = Object.fromEntries(
    Object.entries(spent)
      .filter(([k, v]) => k.startsWith("TenantDO.") && v > 0)
      .map(([k, v]) => [k, Math.round((v / Math.max(queries, 1)) * 1000) / 1000]),
  );
  const total = Object.values(byMethod).reduce((a, b) => a + b, 0);
  return { total: Math.round(total * 1000) / 1000, byMethod };
}

/** An answer neither accepted nor shed: a 5xx, or a shed status without Retry-After, fails the bench. */
function judge(a: Answer, what: string, failures: Set<string>, sample: (s: string) => void): void {
  if (a.status >= 500) failures.add(`a ${what} answered ${a.status} (not shed: no Retry-After, or not 503)`);
  else if (a.status === 429 || a.status === 503) failures.add(`a ${what} shed without Retry-After`);
  else failures.add(`a ${what} answered ${a.status}`);
  sample(`${what} ${a.status}: ${a.text}`);
}
