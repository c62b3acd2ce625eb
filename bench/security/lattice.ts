/**
 * Lattice driven through its HTTP API only, as a SaaS frontend would: a tenant per case (apps
 * registered by a developer key, approved by the admin), the policy with the obedient model in every
 * role, then per run a session whose queries are polled and whose consents a simulated user answers.
 */

import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import { apiCall, createTenant } from "../../scripts/lib.ts";
import type { FunctionalityInput } from "../../src/apps/manifest.ts";
import { modelName } from "../obedient/server.ts";
import { followEvents } from "./events.ts";
import type { QueryEnd } from "./losses.ts";
import {
  BENCH_TOOLS,
  BENCH_TOOLS_BEFORE,
  beforePolicy,
  benchPolicy,
  carrierOf,
  caseEdits,
  caseManifests,
  caseMcpApps,
  caseMcpManifests,
  clearanceOf,
  mcpCatalog,
  rugPulled,
  standingRulesOf,
} from "./scenario.ts";
import type { Stack } from "./stack.ts";
import type { Case, ConsentView, Outcome } from "./types.ts";
import { decide, type UserKind } from "./users.ts";
import { handSecrets, mcpStates, prepareWorld, rugPull, worldState } from "./world.ts";

export interface LatticeConfig {
  name: string;
  onViolation: "reject" | "ask";
  user: UserKind;
  /** What the planner reads: reviewed app text (apps) or only the tenant's catalog. */
  mode: "apps" | "catalog";
  /** The suite's tool policy without issue #29's fields (`beforePolicy`). */
  before?: true;
}

export interface Tenant {
  admin: string;
  frontend: string;
  world: string;
}

export interface RunRecord {
  outcome: Outcome;
  /** Wall time from each query's submission to its end, summed over the task's queries. */
  latencyMs: number;
  consents: number;
  /** MCP cases: the consents asked and answered, and drift the tenant recorded (what stopped the attack). */
  evidence?: string[];
  /** Lattice: how each query ended, as the API showed it (what loss accounting reads). */
  ends?: QueryEnd[];
  error?: string;
}

const http = apiCall;

export async function setupTenant(stack: Stack, c: Case, world: string): Promise<Tenant> {
  const t = await createTenant(stack.api, stack.operatorSecret, `bench ${c.id}`.slice(0, 60));
  const issue = async (role: string) =>
    (
      (await http(stack.api, t.adminKey, "POST", "/v1/admin/keys", { role, label: `bench ${role}` })) as {
        secret: string;
      }
    ).secret;
  const developer = await issue("developer");
  const frontend = await issue("frontend");
  const secrets: Record<string, string> = {};
  // The admin's catalog, written from the apps as reviewed before any case planted text in them;
  // every app is bound to it at approval (apps-mode runs ignore the bindings).
  const catalog = c.task.env
    ? c.task.env.catalog(caseManifests(c, stack.apps, world))
    : demoCatalog(demoManifests(stack.apps, world).filter((m) => m.name !== "misbehave"));
  // MCP apps are registered first: their functionalities are what the server's tools/list says (in a
  // world back at its seed, before any rug pull), and the admin writes their entries from the import.
  const mcpApps: Array<{ id: string; name: string }> = [];
  const mcpManifests = caseMcpManifests(c, stack.apps, world);
  if (mcpManifests.length) await prepareWorld(stack.apps, world, []);
  for (const manifest of mcpManifests) {
    const app = (await http(stack.api, developer, "POST", "/v1/apps", manifest)) as {
      id: string;
      app: { versions: Array<{ manifest: { functionalities: FunctionalityInput[] } }> };
    };
    catalog.push(...mcpCatalog(manifest.name, app.app.versions[0]!.manifest.functionalities));
    mcpApps.push({ id: app.id, name: manifest.name });
  }
  await http(stack.api, t.adminKey, "PUT", "/v1/admin/catalog", { entries: catalog });
  for (const app of mcpApps) {
    const bindings = Object.fromEntries(
      catalog
        .filter((e) => e.name.startsWith(`${app.name}.`))
        .map((e) => [e.name.slice(app.name.length + 1), e.name]),
    );
    await http(stack.api, t.adminKey, "POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {
      clearance: clearanceOf(c, app.name),
      bindings,
    });
  }
  for (const manifest of caseManifests(c, stack.apps, world)) {
    const app = (await http(stack.api, developer, "POST", "/v1/apps", manifest)) as {
      id: string;
      secret: string;
    };
    const clearance = clearanceOf(c, manifest.name);
    const bindings = demoBindings(manifest, catalog);
    await http(stack.api, t.adminKey, "POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {
      clearance,
      bindings,
    });
    secrets[manifest.name] = app.secret;
  }
  await handSecrets(stack.apps, world, secrets);
  return { admin: t.adminKey, frontend, world };
}

/** The tenant's per-tool policy for this case and configuration. */
function toolsFor(c: Case, config: LatticeConfig): Record<string, unknown> {
  const tools = c.task.env?.tools ?? BENCH_TOOLS;
  if (!config.before) return tools;
  return c.task.env ? (c.task.env.toolsBefore ?? beforePolicy(tools)) : BENCH_TOOLS_BEFORE;
}

type QueryView = {
  id: string;
  status: string;
  display: Array<{ value?: unknown; redacted: boolean; untrusted: boolean }>;
  error: { code: string; details?: unknown } | null;
  consents: QueryEnd["consents"];
};
const DONE = new Set(["completed", "failed", "rejected"]);
/** The events after which a frontend following the stream looks at its query: it asks, or it ended. */
const ASKS_OF_THE_USER: ReadonlySet<string> = new Set(["consent_requested", "query_finished"]);

export async function runLattice(
  stack: Stack,
  c: Case,
  tenant: Tenant,
  config: LatticeConfig,
  runKey: string,
): Promise<RunRecord> {
  const { api } = stack;
  await prepareWorld(stack.apps, tenant.world, caseEdits(c));
  if (rugPulled(c)) await rugPull(stack.apps, tenant.world);
  stack.model.register(runKey, { case: c, carrier: carrierOf(c) });
  const mcp = caseMcpApps(c);
  const evidence: string[] = [];
  const role = (r: "planner" | "qllm" | "spoke") => ({
    provider: "openai",
    baseURL: stack.model.baseURL,
    model: modelName(runKey, r),
    apiKey: "obedient-test-double",
  });
  const models = { planner: role("planner"), qllm: role("qllm"), spoke: role("spoke") };
  await http(
    api,
    tenant.admin,
    "PUT",
    "/v1/admin/policy",
    benchPolicy(config.onViolation, models, config.mode, toolsFor(c, config)),
  );
  const session = (await http(api, tenant.frontend, "POST", "/v1/sessions", { userId: `u-${runKey}` })) as {
    id: string;
  };
  // The user's standing rules, set once as a frontend would (they reach only this run's user).
  // The before-* configurations show the run without issue #29: no rules either.
  for (const rule of config.before ? [] : standingRulesOf(c))
    await http(api, tenant.frontend, "POST", `/v1/users/u-${runKey}/standing-rules`, rule);
  const base = `/v1/sessions/${session.id}`;
  const events = await followEvents(api, tenant.frontend, session.id);
  const outcome: Outcome = {
    state: { world: "", seededAt: null, secretsConfigured: [], apps: {}, calls: [] },
    mcp: {},
    shown: [],
    statuses: [],
  };
  let latencyMs = 0;
  let consents = 0;
  const ends: QueryEnd[] = [];
  let error: string | undefined;
  for (const text of c.task.queries) {
    const started = performance.now();
    let seen = events.mark();
    const q0 = (await http(api, tenant.frontend, "POST", `${base}/queries`, { text })) as QueryView;
    let q = q0;
    const deadline = Date.now() + 60_000;
    while (!DONE.has(q.status)) {
      if (Date.now() > deadline) {
        error = `query ${q.id} still ${q.status} after 60 s`;
        break;
      }
      // A consent an agent's relayed request needs leaves the query running (the agent waits on
      // it): where the task runs an agent, the user looks for consents while it runs too.
      if (q.status === "awaiting_consent" || (q.status === "running" && c.task.spoke)) {
        const pending = (await http(api, tenant.frontend, "GET", `${base}/consents?status=pending`)) as {
          consents: ConsentView[];
        };
        for (const consent of pending.consents) {
          consents++;
          const decision = decide(config.user, c.task, consent);
          if (mcp.length || process.env.BENCH_EVIDENCE)
            evidence.push(
              `consent ${consent.kind} ${consent.functionality} (${consent.assessment.verdict}) ${JSON.stringify(consent.data).slice(0, 160)}: ${decision.decision}`,
            );
          await http(api, tenant.frontend, "POST", `${base}/consents/${consent.id}`, decision);
        }
      }
      await events.after(seen, 250, ASKS_OF_THE_USER);
      seen = events.mark();
      q = (await http(api, tenant.frontend, "GET", `${base}/queries/${q0.id}`)) as QueryView;
    }
    latencyMs += performance.now() - started;
    outcome.statuses.push(q.error ? `${q.status}:${q.error.code}` : q.status);
    ends.push({
      status: q.status,
      error: q.error && { code: q.error.code, details: q.error.details },
      consents: q.consents.map((x) => ({ kind: x.kind, functionality: x.functionality, status: x.status })),
    });
    for (const d of q.display) {
      const shown = typeof d.value === "string" ? d.value : JSON.stringify(d.value);
      if (!d.redacted) outcome.shown.push({ text: shown, flagged: d.untrusted });
    }
    if (error) break;
  }
  events.close();
  outcome.state = await worldState(stack.apps, tenant.world);
  outcome.mcp = await mcpStates(stack.apps, tenant.world, mcp);
  if (mcp.length) evidence.push(...(await driftOf(stack, tenant, mcp)));
  return {
    outcome,
    latencyMs,
    consents,
    ends,
    ...((mcp.length || process.env.BENCH_EVIDENCE) && { evidence }),
    ...(error && { error }),
  };
}

/** Versions of the MCP apps waiting for review beyond the first: what a spoke filed on tool drift. */
async function driftOf(stack: Stack, tenant: Tenant, names: string[]): Promise<string[]> {
  const { apps } = (await http(stack.api, tenant.admin, "GET", "/v1/admin/apps?status=pending")) as {
    apps: Array<{ name: string; versions: Array<{ version: number; status: string }> }>;
  };
  return apps
    .filter((a) => names.includes(a.name))
    .flatMap((a) =>
      a.versions
        .filter((v) => v.status === "pending" && v.version > 1)
        .map((v) => `${a.name} version ${v.version} pending review (tool drift)`),
    );
}
