import { Lru } from "../../lru.ts";
import { deepFreeze } from "../../policy/index.ts";
import { type AppPicks, picksProblems } from "../../runtime/index.ts";
import type { Rpc } from "../rpc.ts";
import type { TenantDO } from "../tenant/index.ts";
import type { PlanningView } from "../tenant/planning-view.ts";

/**
 * The planning views this isolate holds, by tenant: each hub asks the TenantDO with the stamp of
 * the one held, and is sent the view only when it changed (a new policy, catalog or registry
 * state), so a query does not carry every app's manifest across on each planning. Hubs share them,
 * so they are read only: the policy is frozen; schemas cannot be, since the JSON Schema validator
 * marks a schema it compiles (the same marks each time). The 64 most recently used tenants' are kept.
 */
type Held = { stamp: string; view: PlanningView };
const views = new Lru<string, Held>(64);

type Answer = Awaited<ReturnType<TenantDO["planningContext"]>>;
/** What a query's planning starts from, from the tenant: its view and the planner's model. */
export type TenantContext = PlanningView & { planner: Answer["planner"] };

export async function planningContextOf(tenant: Rpc<TenantDO>, tenantId: string): Promise<TenantContext> {
  const held = views.get(tenantId);
  return resolved(tenantId, held, await tenant.planningContext(held?.stamp ?? null));
}

/** A new query's admission (its quota) with its planning context in the same round trip. */
export async function admitQuery(tenant: Rpc<TenantDO>, tenantId: string) {
  const held = views.get(tenantId);
  const { quota, context } = await tenant.admitQuery(held?.stamp ?? null);
  return { quota, context: context && resolved(tenantId, held, context) };
}

/**
 * Where a query's app picks do not hold in the tenant's view, asked before its admission so that a
 * refused query spends none of the quota. A round trip of its own, taken only when there are picks.
 */
export async function picksRefused(tenant: Rpc<TenantDO>, tenantId: string, picks: AppPicks) {
  return Object.keys(picks).length ? picksProblems(await planningContextOf(tenant, tenantId), picks) : [];
}

function resolved(tenantId: string, held: Held | undefined, answer: Answer): TenantContext {
  let view = answer.view;
  if (view) {
    deepFreeze(view.policy);
  } else if (held) {
    view = held.view; // the stamp it was asked with is still the tenant's
  } else {
    throw new Error("the tenant sent no planning view for a stamp it was not asked with");
  }
  views.set(tenantId, { stamp: answer.stamp, view });
  return { ...view, planner: answer.planner };
}
