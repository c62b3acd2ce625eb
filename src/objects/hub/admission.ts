import { type Failure, failure, type Ok } from "../../result.ts";
import {
  type AppPicks,
  AppPicksSchema,
  type QueryOptions,
  QueryOptionsSchema,
  samePicks,
} from "../../runtime/index.ts";
import { randomId } from "../crypto.ts";
import { picksRefused, spend } from "../tenant-replica/index.ts";
import { parseTraceparent } from "../tracing.ts";
import type { QueryLifecycle } from "./lifecycle.ts";
import { type Caller, type HubStore, mayUse, type QueryRecord, type Session } from "./store.ts";
import { type HubTraces, storedTrace } from "./traces.ts";
import type { HubUserData } from "./user-data.ts";
import type { QueryView } from "./view.ts";

export type StartResult =
  | Ok<{ query: QueryView }>
  | Failure<"idempotency_conflict" | "no_session" | "invalid_options", undefined>
  | Failure<"invalid_picks", Array<{ choice: string; message: string }>>
  | Failure<"quota_exceeded", { quota: string; limit: number; retryAfterSeconds: number }>;

/** The frontend's W3C trace headers, as startQuery takes them. */
export type TraceHeaders = { traceparent?: string; tracestate?: string };

/** What admitting a query needs of its hub (HubDO). */
export interface AdmissionContext {
  ctx: DurableObjectState;
  env: Env;
  store: HubStore;
  traces: HubTraces;
  lifecycle: QueryLifecycle;
  userData: HubUserData;
  session: () => Session | null;
  view: (row: QueryRecord) => QueryView;
  /** Does the alarm's work right after the reply leaves (HubDO.soon). */
  soon: () => void;
}

/** HubDO.startQuery: the admission, in its own span under the query's. */
export async function startQuery(
  hub: AdmissionContext,
  text: string,
  idempotencyKey: string | null,
  given: QueryOptions,
  caller: Caller | null,
  picks: AppPicks,
  trace: TraceHeaders,
): Promise<StartResult> {
  const { tracer } = hub.traces;
  const parent = tracer.on ? parseTraceparent(trace.traceparent, trace.tracestate) : null;
  // The query's span id is fixed now; its span is written when it ends (traces.ts).
  const querySpan = tracer.on ? tracer.start("lattice.query", parent) : null;
  const admission = tracer.start("lattice.admission", querySpan?.context ?? null);
  const started = await admit(
    hub,
    text,
    idempotencyKey,
    given,
    caller,
    picks,
    querySpan && storedTrace(querySpan.context, parent),
  );
  admission.end(started.ok ? "ok" : started.code, started.ok ? { "lattice.query_id": started.query.id } : {});
  return started;
}

async function admit(
  hub: AdmissionContext,
  text: string,
  idempotencyKey: string | null,
  given: QueryOptions,
  caller: Caller | null,
  picks: AppPicks,
  trace: string | null,
): Promise<StartResult> {
  const { ctx, env, store, lifecycle } = hub;
  const session = hub.session();
  if (session)
    hub.traces.tracer.identify({ tenant: session.tenantId, session: session.id, user: session.userId });
  if (!session || !mayUse(session, caller)) {
    return failure("no_session", "no such session");
  }
  // Controls arrive over RPC only; a malformed one is refused here, so every stored row reads back.
  const parsed = QueryOptionsSchema.safeParse(given);
  if (!parsed.success) return failure("invalid_options", "unknown query options");
  const options = parsed.data;
  const picked = AppPicksSchema.safeParse(picks);
  if (!picked.success) return failure("invalid_picks", "malformed app picks", []);
  if (idempotencyKey) {
    const seen = store.queryByIdempotencyKey(idempotencyKey);
    if (seen) {
      return seen.text === text && samePicks(seen.picks, picked.data)
        ? { ok: true, query: hub.view(seen) }
        : failure("idempotency_conflict", "this Idempotency-Key was used for a different query");
    }
  }
  // Only a new query counts against the tenant's daily quota (a retry above returned already),
  // in this isolate's ledger. The user's artifact metadata is asked for meanwhile, so planning
  // (which reads the tenant from the isolate's replica) can start as soon as the query is recorded.
  const auto = options.stepping !== "manual";
  const artifacts = auto ? lifecycle.artifactsOf(session) : null;
  artifacts?.catch(() => {}); // met where it is awaited, or not needed
  const problems = await picksRefused(env, session.tenantId, picked.data);
  if (problems.length) return failure("invalid_picks", "an app picked does not serve it", problems);
  const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
  const quota = await spend(env, session.tenantId, "queries", waitUntil);
  if (!quota.ok) return failure("quota_exceeded", "the daily query quota is used up", quota.details);
  // A session opened before the index existed is used through its queries, never opened again:
  // it is named here (once per instance; nothing after the marker is read).
  await hub.userData.noteInIndex(session);
  const query = store.insertQuery(randomId("q"), text, idempotencyKey, options, picked.data, trace);
  store.emit(query.id, "query_started", { text });
  if (auto) {
    if (artifacts) lifecycle.admitted(query.id, artifacts);
    await ctx.storage.setAlarm(Date.now());
    hub.soon();
  }
  return { ok: true, query: hub.view(query) };
}
