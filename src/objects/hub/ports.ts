import type { AuditType } from "../../audit-types.ts";
import { VANILLA_SPOKE } from "../../contracts.ts";
import type { Policy } from "../../policy/index.ts";
import { type Defences, type QueryPorts, StepFailure, type ToolRequest } from "../../runtime/index.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import { artifactsStub, spokeStub, tenantStub } from "../stubs.ts";
import type { ConsentStore } from "./consents.ts";
import type { HubStore, Session } from "./store.ts";

/**
 * The runtime's effects for one query, over this hub's storage and the other objects' stubs: every
 * tool call to the app's spoke, q-llm steps to the vanilla spoke, artifacts and grants to the
 * user's ArtifactsDO.
 */
export function queryPorts(input: {
  env: Env;
  session: Session;
  queryId: string;
  policy: Policy;
  defences: Defences;
  store: HubStore;
  consents: ConsentStore;
  audit(type: AuditType, detail: Record<string, unknown>): void;
}): QueryPorts {
  const { env, session, queryId, policy, store } = input;
  const artifacts = artifactsStub(env, session.tenantId, session.userId);
  const spoke = (appId: string) => spokeStub(env, session.tenantId, session.userId, appId);
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
    tool: async (call: ToolRequest) => {
      const result = await spoke(call.appId).call({
        tenantId: session.tenantId,
        userId: session.userId,
        appId: call.appId,
        functionality: call.functionality,
        appVersion: call.version,
        request: call.args,
        callId: randomId("call"),
        sessionId: session.id,
        checkPins: input.defences.pins,
        idempotencyKey: await sha256Hex(`${session.id}:${queryId}:${call.key}`),
        remember: !session.private,
        limits: { timeoutMs: policy.limits.appTimeoutMs },
        memory: call.memory,
        agent: {
          modelTimeoutMs: policy.limits.modelTimeoutMs,
          selfCorrection: policy.selfCorrection,
          checks: input.defences.visor,
          trustedArgs: call.trusted,
          destinations: call.destinations,
          collaboration: { sessionId: session.id, queryId, stepKey: call.key },
        },
      });
      for (const event of result.events ?? []) {
        // Which rule stopped which tool (the spoke names only the app's own tools); the call's
        // arguments and the rule's wording stay in the spoke: a trace reaches the frontend whatever
        // the display policy. The boundary's control run shows the event whole.
        if (event.type === "visor_exception")
          store.emit(queryId, "visor_exception", {
            key: call.key,
            tool: event.tool,
            exception: { type: event.exception?.type },
            ...(!input.defences.boundary && { args: event.args, rationale: event.exception }),
          });
      }
      if (!result.ok) {
        throw new StepFailure(result.code, `${call.tool}: ${result.message}`, {
          details: result.problems,
          facts: { step: call.key, tool: call.tool, ...(result.rule && { rule: result.rule }) },
        });
      }
      return {
        value: result.value,
        readUntrusted: result.readUntrusted ?? false,
        relayed: result.relayed ?? [],
        remembered: result.remembered ?? [],
      };
    },
    qllm: async (step, given) => {
      let inputs = given;
      if (!input.defences.isolation) {
        // The control for isolation: the q-llm also sees every app's own instructions.
        const apps = await tenantStub(env, session.tenantId).servingApps();
        inputs = { ...given, appInstructions: apps.map((a) => `${a.name}: ${a.manifest.description}`) };
      }
      const result = await spoke(VANILLA_SPOKE).qllm({
        tenantId: session.tenantId,
        userId: session.userId,
        modelTimeoutMs: policy.limits.modelTimeoutMs,
        prompt: step.prompt,
        inputs,
        schema: step.schema,
      });
      if (!result.ok) throw new StepFailure(result.code, `q-llm step: ${result.message}`);
      return result.value;
    },
    retrieve: async (artifactId) => {
      const artifact = await artifacts.get(artifactId);
      return artifact && { value: artifact.value, label: artifact.metadata.label };
    },
  };
}
