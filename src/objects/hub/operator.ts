import { schemaProblems } from "../../apps/schemas.ts";
import { DEFAULT_MODEL_LIMITS, ModelError, type ModelLimits, modelFor } from "../../llm/index.ts";
import {
  indexQuery,
  type Plan,
  type Policy,
  policyLattices,
  type Step,
  type Violation,
  type VisorCheck,
} from "../../policy/index.ts";
import type { Env } from "../../worker/env.ts";
import type { ArtifactsDO } from "../artifacts/index.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import type { Rpc } from "../rpc.ts";
import type { SpokeDO } from "../spoke/index.ts";
import { spokeStub, tenantStub, vaultStub } from "../stubs.ts";
import type { TenantDO } from "../tenant/index.ts";
import type { ConsentStore } from "./consents.ts";
import { Gate } from "./gate.ts";
import { type Annotated, type Effects, runPlan } from "./interpreter.ts";
import { type PlanningSnapshot, plan, plannerMessages, snapshotOf } from "./planner.ts";
import type { HubStore, QueryError, QueryRow, Session } from "./store.ts";
import { StepFailure } from "./values.ts";

/** Stored with the query once planned: everything execution needs, fixed for the query's life. */
export interface QueryContext {
  policy: Policy;
  snapshot: PlanningSnapshot;
  /** Always both on from HTTP; tests switch one off over RPC to show the attack it stops. */
  defences: { ifc: boolean; consent: boolean; isolation: boolean; visor: Record<VisorCheck, boolean> };
}

/** Per-query controls, reachable over RPC only (the HTTP API never sets them): for tests and benches. */
export interface QueryOptions {
  /** "off" runs the query with the information-flow defence disabled: the control for security tests. */
  ifc?: "on" | "off";
  /** "off" runs it without consents (every call allowed): the control for consent tests. */
  consent?: "on" | "off";
  /** "off" gives q-llm steps every value and every app's instructions: the control for isolation tests. */
  isolation?: "on" | "off";
  /** Switches one of the visor's checks off: the control for the visor's ablation tests. */
  visorOff?: VisorCheck;
  /** "manual": no alarms; each `advance` RPC performs one step (tests evict between steps). */
  stepping?: "auto" | "manual";
}

/** How many new tool or q-llm calls one advance performs: each one is a durable step boundary. */
const STEPS_PER_ADVANCE = 1;

/**
 * The deterministic hub operator: plans a query, then advances it one effect at a time. It holds no
 * state of its own between advances; the store is the truth, so eviction never loses a query.
 */
export class Operator {
  private readonly store: HubStore;
  private readonly consents: ConsentStore;
  private readonly env: Env;
  private readonly session: Session;

  /** The hub's audit line to its tenant (fire and forget: an audit write never fails a query). */
  private readonly audit: (type: string, detail: Record<string, unknown>) => void;

  constructor(
    store: HubStore,
    consents: ConsentStore,
    env: Env,
    session: Session,
    audit: (type: string, detail: Record<string, unknown>) => void,
  ) {
    this.store = store;
    this.consents = consents;
    this.env = env;
    this.session = session;
    this.audit = audit;
  }

  private get tenant(): Rpc<TenantDO> {
    return tenantStub(this.env, this.session.tenantId);
  }

  private get vault(): Rpc<ArtifactsDO> {
    return vaultStub(this.env, this.session.tenantId, this.session.userId);
  }

  private spoke(appId: string): Rpc<SpokeDO> {
    return spokeStub(this.env, this.session.tenantId, this.session.userId, appId);
  }

  /** One advance of one query; any failure ends the query cleanly (fail-closed). */
  async advance(query: QueryRow, options: QueryOptions = {}): Promise<void> {
    try {
      if (query.status === "planning") await this.planQuery(query, options);
      else if (query.status === "running") await this.execute(query);
    } catch (error) {
      this.fail(query.id, toQueryError(error));
    }
  }

  private async planQuery(query: QueryRow, options: QueryOptions): Promise<void> {
    const { policy } = await this.tenant.policy();
    const apps = await this.tenant.servingApps();
    const artifacts = this.session.private ? [] : await this.vault.listMetadata(100);
    const earlierQueries = this.store
      .queries()
      .filter((q) => q.seq < query.seq)
      .map((q) => q.text);
    const snapshot = snapshotOf(apps, artifacts, policy);
    const messages = plannerMessages({ query: query.text, apps, artifacts, earlierQueries });
    this.store.emit(query.id, "planning", {});
    const outcome = await plan({
      query: query.text,
      policy,
      snapshot,
      messages,
      model: modelFor("planner", policy.models, this.env),
      limits: modelLimits(policy),
    });
    if (outcome.state === "invalid") {
      const details = outcome.check?.errors ?? [];
      this.store.update(query.id, {
        status: "failed",
        error: { code: "invalid_plan", message: outcome.reason, details },
      });
      this.audit("plan_invalid", { queryId: query.id, errors: details.slice(0, 20) });
      this.store.emit(query.id, "query_finished", { status: "failed" });
      return;
    }
    const badSchemas = qllmSchemaProblems(outcome.check.plan.steps, "steps");
    if (badSchemas.length) {
      const error = {
        code: "invalid_plan",
        message: "a q-llm step's schema is not usable",
        details: badSchemas,
      };
      this.store.update(query.id, { status: "failed", error });
      this.store.emit(query.id, "query_finished", { status: "failed" });
      return;
    }
    const verdict = outcome.check.verdict;
    const { violations, redactions } = verdict;
    const defences = {
      ifc: options.ifc !== "off",
      consent: options.consent !== "off",
      isolation: options.isolation !== "off",
      visor: { S: options.visorOff !== "S", T: options.visorOff !== "T", I: options.visorOff !== "I" },
    };
    const context: QueryContext = { policy, snapshot, defences };
    if (outcome.state === "rejected" && defences.ifc) {
      this.store.update(query.id, {
        status: "rejected",
        plan: outcome.check.plan,
        context,
        verdict: { violations, redactions },
        error: {
          code: "plan_rejected",
          message: "the plan would let data flow where policy forbids",
          details: violations,
        },
      });
      this.audit("plan_rejected", { queryId: query.id, violations, attempts: outcome.attempts });
      this.store.emit(query.id, "query_finished", { status: "rejected" });
      return;
    }
    if (redactions.length)
      this.audit("display_redacted", { queryId: query.id, items: redactions.map((r) => r.path) });
    this.store.update(query.id, {
      status: "running",
      plan: outcome.check.plan,
      context,
      verdict: { violations, redactions },
    });
    // The planner's token use shows in the trace (a live model bills it; scripted ones estimate).
    this.store.emit(query.id, "planned", {
      attempts: outcome.attempts,
      violations: violations.length,
      tokens: outcome.tokens,
    });
  }

  private async execute(query: QueryRow): Promise<void> {
    const context = JSON.parse(query.context!) as QueryContext;
    const policy = context.policy;
    const lattices = policyLattices(policy);
    const outcome = await runPlan({
      plan: JSON.parse(query.plan!) as Plan,
      policy,
      lattices,
      catalog: context.snapshot.catalog,
      query: indexQuery(query.text),
      journal: this.store.journal(query.id),
      budget: STEPS_PER_ADVANCE,
      isolation: context.defences.isolation,
      effects: this.effects(query, context),
      record: {
        started: (key, kind, info) => this.store.journalStarted(query.id, key, kind, info),
        done: (key, kind, value, label, info) =>
          this.store.journalDone(query.id, key, kind, value, label, info),
        display: (item) => this.store.addDisplay(query.id, item),
        event: (type, data) => this.store.emit(query.id, type, data),
      },
    });
    if (outcome.state === "done") await this.complete(query, outcome.results);
  }

  private effects(query: QueryRow, context: QueryContext): Effects {
    const { policy, snapshot } = context;
    const gate = new Gate({
      queryId: query.id,
      query: query.text,
      policy,
      snapshot,
      violations: (JSON.parse(query.verdict ?? "{}") as { violations?: Violation[] }).violations ?? [],
      defences: context.defences,
      store: this.store,
      consents: this.consents,
      vault: this.vault,
      audit: this.audit,
    });
    return {
      irreversible: (tool) => snapshot.catalog[tool]?.irreversible ?? true,
      route: (step) => gate.route(step),
      gate: (tool, key, args, pc) => gate.check(tool, key, args, pc),
      tool: async (tool, key, args, trusted) => {
        const appId = snapshot.apps[tool];
        if (!appId) throw new StepFailure("unknown_tool", `${tool} is not in the catalog`);
        const result = await this.spoke(appId).call({
          tenantId: this.session.tenantId,
          userId: this.session.userId,
          appId,
          functionality: tool.slice(tool.indexOf(".") + 1),
          appVersion: snapshot.versions[appId],
          request: args,
          callId: randomId("call"),
          idempotencyKey: await sha256Hex(`${this.session.id}:${query.id}:${key}`),
          remember: !this.session.private,
          limits: { timeoutMs: policy.limits.appTimeoutMs },
          agent: {
            model: modelFor("spoke", policy.models, this.env),
            limits: modelLimits(policy),
            selfCorrection: policy.selfCorrection,
            checks: context.defences.visor,
            trustedArgs: trusted,
            collaboration: { sessionId: this.session.id, queryId: query.id, stepKey: key },
          },
        });
        for (const event of result.events ?? []) {
          if (event.type === "visor_exception")
            this.store.emit(query.id, "visor_exception", { key, ...event });
        }
        if (!result.ok) throw new StepFailure(result.code, `${tool}: ${result.message}`, result.problems);
        return {
          value: result.value,
          readUntrusted: result.readUntrusted ?? false,
          relayed: result.relayed ?? [],
        };
      },
      qllm: async (step, _key, given) => {
        let inputs = given;
        if (!context.defences.isolation) {
          const apps = await this.tenant.servingApps();
          inputs = { ...given, appInstructions: apps.map((a) => `${a.name}: ${a.manifest.description}`) };
        }
        const result = await this.spoke("_vanilla").qllm({
          model: modelFor("qllm", policy.models, this.env),
          limits: modelLimits(policy),
          prompt: step.prompt,
          inputs,
          schema: step.schema,
        });
        if (!result.ok) throw new StepFailure(result.code, `q-llm step: ${result.message}`);
        return result.value;
      },
      retrieve: async (artifactId) => {
        if (!snapshot.artifacts[artifactId]) {
          throw new StepFailure("unknown_artifact", `${artifactId} was not shown to the planner`);
        }
        const artifact = await this.vault.get(artifactId);
        if (!artifact) throw new StepFailure("artifact_gone", `${artifactId} no longer exists`);
        return { value: artifact.value, label: artifact.metadata.label, origins: ["vault"] };
      },
    };
  }

  private async complete(query: QueryRow, results: Annotated[]): Promise<void> {
    if (!this.session.private) {
      for (const { name, step, result } of results) {
        if (step.kind === "display" || step.kind === "condition") continue;
        await this.vault.put({
          id: `art_${(await sha256Hex(`${query.id}:${name}`)).slice(0, 24)}`,
          name,
          schema: step.kind === "qllm" ? step.schema : undefined,
          intent: "intent" in step ? step.intent : `collected by loop ${name}`,
          semantics: "semantics" in step ? step.semantics : `results of loop ${name}`,
          query: query.text,
          label: result.label,
          sessionId: this.session.id,
          queryId: query.id,
          value: result.value,
        });
      }
    } else {
      this.store.forgetValues(query.id);
    }
    this.store.update(query.id, { status: "completed" });
    this.store.emit(query.id, "query_finished", { status: "completed" });
  }

  private fail(queryId: string, error: QueryError): void {
    if (this.session.private) this.store.forgetValues(queryId);
    this.store.update(queryId, { status: "failed", error });
    this.audit("query_failed", { queryId, code: error.code, message: error.message });
    this.store.emit(queryId, "query_finished", { status: "failed", code: error.code });
  }
}

function modelLimits(policy: Policy): ModelLimits {
  return { ...DEFAULT_MODEL_LIMITS, timeoutMs: policy.limits.modelTimeoutMs };
}

function toQueryError(error: unknown): QueryError {
  if (error instanceof StepFailure) {
    return error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  if (error instanceof ModelError) return { code: error.code, message: error.message };
  console.error("query failed unexpectedly", error);
  return { code: "internal_error", message: "the query failed unexpectedly" };
}

/** The planner writes q-llm schemas: they get the same meta-check (and pattern bounds) as app schemas. */
function qllmSchemaProblems(
  steps: readonly Step[],
  path: string,
): Array<{ path: string; problems: string[] }> {
  return steps.flatMap((step, i) => {
    const at = `${path}[${i}]`;
    if (step.kind === "qllm") {
      const problems = schemaProblems(step.schema);
      return problems.length ? [{ path: at, problems }] : [];
    }
    if (step.kind === "condition") {
      return [...qllmSchemaProblems(step.then, `${at}.then`), ...qllmSchemaProblems(step.else, `${at}.else`)];
    }
    return step.kind === "loop" ? qllmSchemaProblems(step.body, `${at}.body`) : [];
  });
}
