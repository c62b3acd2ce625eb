import type { AuditType } from "../../audit-types.ts";
import { VANILLA_SPOKE } from "../../contracts.ts";
import { type QueryPorts, StepFailure, stepFailure } from "../../runtime/index.ts";
import { artifactsStub, spokeStub } from "../stubs.ts";
import { servingState } from "../tenant-replica/index.ts";
import { formatTraceparent } from "../tracing.ts";
import { appCaller, type QueryScope } from "./app-call.ts";
import type { ConsentStore } from "./consents.ts";

/**
 * The runtime's effects for one query, over this hub's storage and the other objects' stubs: every
 * tool call through the app-call port (app-call.ts), q-llm steps to the vanilla spoke, artifacts and
 * grants to the user's ArtifactsDO.
 */
export function queryPorts(
  input: QueryScope & {
    consents: ConsentStore;
    audit(type: AuditType, detail: Record<string, unknown>): void;
  },
): QueryPorts {
  const { env, session, queryId, policy, store } = input;
  const artifacts = artifactsStub(env, session.tenantId, session.userId);
  const spoke = (appId: string) => spokeStub(env, session.tenantId, session.userId, appId);
  const app = appCaller(input);
  return {
    audit: input.audit,
    standing: async (subject) => input.consents.sessionGrant(subject) ?? (await artifacts.findGrant(subject)),
    standingRules: () => artifacts.standingRules(),
    consent: (subject) => input.consents.forSubject(queryId, subject),
    authorization: (appId, subject) =>
      spoke(appId).authorization({
        tenantId: session.tenantId,
        userId: session.userId,
        appId,
        sessionId: session.id,
        queryId,
        subject,
      }),
    record: {
      started: (key, kind, info) => store.journalStarted(queryId, key, kind, info),
      done: (key, kind, value, label, info) => store.journalDone(queryId, key, kind, value, label, info),
      display: (item) => store.addDisplay(queryId, item),
      event: (type, data) => store.emit(queryId, type, data),
    },
    tool: async (call) => {
      const outcome = await app(call);
      if (!outcome.ok) throw stepFailure(call, outcome);
      return outcome;
    },
    qllm: async (step, given, key) => {
      let inputs = given;
      if (!input.defences.isolation) {
        // The control for isolation: the q-llm also sees every app's own instructions.
        const { apps } = (await servingState(env, session.tenantId)).view;
        inputs = { ...given, appInstructions: apps.map((a) => `${a.name}: ${a.manifest.description}`) };
      }
      // The spoke's q-llm span hangs under the step's.
      const parent = input.traces?.stepContext(queryId, key);
      const result = await spoke(VANILLA_SPOKE).qllm({
        tenantId: session.tenantId,
        userId: session.userId,
        modelTimeoutMs: policy.limits.modelTimeoutMs,
        prompt: step.prompt,
        inputs,
        schema: step.schema,
        ...(parent && { traceparent: formatTraceparent(parent) }),
      });
      if (!result.ok) throw new StepFailure(result.code, `q-llm step: ${result.message}`);
      return result.value;
    },
    retrieve: async (artifactId) => {
      // Its value with who made it: a kept answer stays the app's or the model's (#43).
      return await artifacts.retrieve(artifactId);
    },
  };
}
