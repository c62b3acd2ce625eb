import { displayRequirement, type Policy, policyLattices } from "../../policy/index.ts";
import { type AppCall, type AppCallOutcome, callApp, type Defences } from "../../runtime/index.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import { spokeStub } from "../stubs.ts";
import { formatTraceparent } from "../tracing.ts";
import type { CallProgress } from "./progress.ts";
import type { HubStore, Session } from "./store.ts";
import type { HubTraces } from "./traces.ts";

/**
 * The one way this hub calls an app (the runtime's `callApp`, app-call.ts): a plan step's call
 * (ports.ts) and a relay between spokes (collaboration.ts) alike, over the app's spoke, with the
 * query's trace in this hub's store.
 */
/** One query of this hub, as its effects reach other objects. */
export interface QueryScope {
  env: Env;
  session: Session;
  queryId: string;
  policy: Policy;
  defences: Defences;
  store: HubStore;
  /** Where a plan step's call takes its app's progress reports while it runs (absent: none taken). */
  progress?: CallProgress;
  /** Where the call's trace context comes from (absent: the call carries none). */
  traces?: HubTraces;
}

export function appCaller(input: QueryScope): (call: AppCall) => Promise<AppCallOutcome> {
  const { env, session, queryId, store } = input;
  const scope = {
    tenantId: session.tenantId,
    userId: session.userId,
    sessionId: session.id,
    queryId,
    remember: !session.private,
    policy: input.policy,
    defences: input.defences,
  };
  return (call) =>
    callApp(scope, call, {
      send: (untraced) => {
        // The spoke's app-call span hangs under the step's, and the app's own trace under that.
        const parent =
          call.origin.kind === "step"
            ? input.traces?.stepContext(queryId, call.origin.key)
            : input.traces?.context(queryId);
        const spokeCall = parent ? { ...untraced, traceparent: formatTraceparent(parent) } : untraced;
        const send = () =>
          spokeStub(env, session.tenantId, session.userId, call.target.appId).call(spokeCall);
        // Progress is shown as it comes: none for a call whose answer the display would withhold.
        if (!input.progress || call.origin.kind !== "step" || !shownProgress(input.policy, call))
          return send();
        const step = { queryId, key: call.origin.key, tool: call.target.tool, app: call.target.app };
        return input.progress.during(spokeCall.callId, step, send);
      },
      callId: () => randomId("call"),
      digest: sha256Hex,
      emit: (type, data) => store.emit(queryId, type, data),
    });
}

/** Whether the display cap admits the confidentiality the call's answer carries before it runs. */
function shownProgress(policy: Policy, call: AppCall): boolean {
  const l = policyLattices(policy);
  const c = l.confidentiality;
  const carries = c.rank(call.memory.carries);
  // An unknown level is shown nothing (fail closed).
  return carries >= 0 && carries <= c.rank(displayRequirement(policy, l).maxConfidentiality);
}
