import type { ModelConfig, ModelRole } from "../../llm/index.ts";
import { deepFreeze } from "../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import { type AppPicks, picksProblems } from "../../runtime/index.ts";
import { tenantServing } from "../stubs.ts";
import { callableApp, servingIn } from "../tenant/serving.ts";
import { credentialKey, type PlanningView, type ServingState } from "../tenant/serving-state.ts";
import { type CountedKind, dailyLimit, type QuotaCheck } from "../tenant/usage.ts";
import { Bounded } from "./bounded.ts";
import { type LedgerClock, type Totals, UsageLedger } from "./ledger.ts";

/**
 * The tenant as a hub, a spoke or the edge reads it while serving a query: its state (policy,
 * catalog, serving apps, models) held in this isolate for at most STATE_BOUND_MS, and its quotas
 * counted here and sent in batches (ledger.ts). A query's steps ask the tenant's one object nothing:
 * only a state older than the bound, a batch of counts, or a spend near a limit goes out, once per
 * isolate and tenant whatever the number of queries.
 *
 * The staleness bound: a new policy, catalog, approval, disabled app or rotated secret reaches every
 * isolate within STATE_BOUND_MS; in the isolate that wrote it (the TenantDO's own, and in local
 * workerd every object's) at once, since the TenantDO forgets the tenant there on each write.
 */
export const STATE_BOUND_MS = 5_000;

/** Units counted per batch, by kind: the overshoot bound per isolate (ledger.ts). */
export const BATCH: Totals = { queries: 32, app_calls: 64, plain_calls: 16, model_tokens: 100_000 };

/** Tenants an isolate holds the state of: a deployment serves many, and the set must not grow without end. */
const states = new Bounded<ServingState>(STATE_BOUND_MS, 256);
const ledgers = new Map<string, UsageLedger>();
const MAX_LEDGERS = 1_000;

type Env_ = Parameters<typeof tenantServing>[0];
/** Keeps a batch's send alive past the request that counted it (ExecutionContext or DurableObjectState). */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** The tenant's serving state as this isolate holds it (frozen: every hub and spoke here shares it). */
export function servingState(env: Env_, tenantId: string): Promise<ServingState> {
  return states.get(tenantId, async (stamp) => {
    const answer = await tenantServing(env, tenantId).servingState(stamp);
    if (answer.value) deepFreeze(answer.value.view.policy);
    return answer;
  });
}

/** The policy in force as this isolate holds it (the edge's CORS origins, trusted headers). */
export async function tenantPolicy(env: Env_, tenantId: string): Promise<ServingState["view"]["policy"]> {
  return (await servingState(env, tenantId)).view.policy;
}

/** A write through this isolate: its next read asks the tenant (the TenantDO calls it on each write). */
export function forgetTenant(tenantId: string): void {
  states.forget(tenantId);
}

const clock: LedgerClock = {
  now: () => Date.now(),
  today: () => new Date().toISOString().slice(0, 10),
  later: (ms, fn) => new Promise((resolve) => setTimeout(() => void fn().then(resolve, resolve), ms)),
};

function ledgerOf(env: Env_, tenantId: string): UsageLedger {
  let ledger = ledgers.get(tenantId);
  if (ledger) return ledger;
  if (ledgers.size >= MAX_LEDGERS) {
    // Only a ledger with nothing held goes: its counts are all with the tenant already.
    for (const [id, held] of ledgers) if (held.idle()) ledgers.delete(id);
  }
  const tenant = () => tenantServing(env, tenantId);
  ledger = new UsageLedger(
    {
      flush: (day, counts) => tenant().recordUsage(day, counts),
      exact: (day, counts, kind, amount) => tenant().spendExact(day, counts, kind, amount),
    },
    BATCH,
    clock,
  );
  ledgers.set(tenantId, ledger);
  return ledger;
}

/** Sends every count this isolate holds (tests; a caller about to stop). */
export async function flushUsage(): Promise<void> {
  await Promise.all([...ledgers.values()].map((l) => l.flush()));
}

/** One of today's units of `kind`, under the policy's limit as held here. */
export async function spend(
  env: Env_,
  tenantId: string,
  kind: CountedKind,
  waitUntil?: WaitUntil,
): Promise<QuotaCheck> {
  const { view } = await servingState(env, tenantId);
  const ledger = ledgerOf(env, tenantId);
  const check = await ledger.spend(kind, 1, dailyLimit(view.policy.quotas, kind));
  waitUntil?.(ledger.settled());
  return check;
}

/** Counts a model call's tokens, after it. */
export function recordTokens(env: Env_, tenantId: string, tokens: number, waitUntil?: WaitUntil): void {
  const ledger = ledgerOf(env, tenantId);
  ledger.record("model_tokens", tokens);
  waitUntil?.(ledger.settled());
}

export type ModelGrant = Ok<{ model: ModelConfig; version: number }> | Failure<"quota_exceeded", undefined>;

/** A role's model for one call: refused when today's tokens are used up. */
export async function modelFor(env: Env_, tenantId: string, role: ModelRole): Promise<ModelGrant> {
  const state = await servingState(env, tenantId);
  const left = await ledgerOf(env, tenantId).left("model_tokens", state.view.policy.quotas.modelTokensPerDay);
  if (!left.ok) return failure("quota_exceeded", left.message);
  return { ok: true, model: state.models[role], version: state.policyVersion };
}

/** What a query's planning starts from: the view and the planner's model. */
export type TenantContext = PlanningView & { planner: ModelGrant };

export async function planningContextOf(env: Env_, tenantId: string): Promise<TenantContext> {
  const [{ view }, planner] = await Promise.all([
    servingState(env, tenantId),
    modelFor(env, tenantId, "planner"),
  ]);
  return { ...view, planner };
}

/** Where a query's app picks do not hold in the tenant's view (asked before its admission). */
export async function picksRefused(env: Env_, tenantId: string, picks: AppPicks) {
  if (!Object.keys(picks).length) return [];
  return picksProblems((await servingState(env, tenantId)).view, picks);
}

/**
 * A spoke about to call an app: the serving version (checked against the plan's), the
 * functionality, and one of today's app calls spent once those hold.
 */
export async function beginAppCall(
  env: Env_,
  tenantId: string,
  call: { appId: string; functionality: string; version: number | undefined },
  waitUntil?: WaitUntil,
): Promise<ReturnType<typeof callableApp> | Failure<"quota_exceeded">> {
  const state = await servingState(env, tenantId);
  const found = callableApp(state.apps, call.appId, call.functionality, call.version);
  if (!found.ok) return found;
  const quota = await spend(env, tenantId, "app_calls", waitUntil);
  if (!quota.ok) return failure("quota_exceeded", quota.message);
  return found;
}

/** The serving version of one app with its secrets, or null (a spoke's OAuth, a hub's port). */
export async function servingApp(env: Env_, tenantId: string, appId: string) {
  return servingIn((await servingState(env, tenantId)).apps, appId);
}

/** The opened secret a serving MCP app is reached with at `boundTo`, or null when none is stored. */
export async function appCredential(env: Env_, tenantId: string, appId: string, boundTo: string) {
  return (await servingState(env, tenantId)).credentials[credentialKey(appId, boundTo)] ?? null;
}

/** `lattice-plain`: allowed by the policy, one of today's plain calls, and the spoke role's model. */
export async function beginPlainCall(env: Env_, tenantId: string, waitUntil?: WaitUntil) {
  const { view } = await servingState(env, tenantId);
  if (!view.policy.plainModel.enabled)
    return failure("plain_off", "this tenant's policy does not offer lattice-plain");
  const quota = await spend(env, tenantId, "plain_calls", waitUntil);
  if (!quota.ok) return failure("quota_exceeded", "the daily plain_calls quota is used up", quota.details);
  return modelFor(env, tenantId, "spoke");
}
