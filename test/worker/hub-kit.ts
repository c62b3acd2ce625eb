import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { bare } from "../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../src/apps/manifest.ts";
import type { ScriptEntry } from "../../src/llm/types.ts";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { APPS_BASE, registerDemoApp, uniqueWorld } from "./demo.ts";
import { api, createTenant, issueKey, type TestTenant } from "./helpers.ts";

/** The fake OpenAI-compatible server (a test double): scripts per model name, and a request log. */
const fake = () => (env as unknown as { FAKE_OPENAI: Fetcher }).FAKE_OPENAI;
export const FAKE_BASE_URL = "http://fake-openai.test/v1";

export async function script(
  model: string,
  entries: Array<ScriptEntry & { completion?: unknown }>,
): Promise<void> {
  const res = await fake().fetch(`http://fake/_fake/scripts/${encodeURIComponent(model)}`, {
    method: "PUT",
    body: JSON.stringify({ script: entries }),
  });
  expect(res.status).toBe(200);
}

/** Every request body the fake model received for `model`, in order. */
export async function modelLog(
  model: string,
): Promise<Array<{ messages: Array<{ role: string; content: string }> }>> {
  const res = await fake().fetch(`http://fake/_fake/log/${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: Array<{ messages: Array<{ role: string; content: string }> }> })
    .requests;
}

export interface HubWorld {
  tenant: TestTenant;
  frontend: string;
  world: string;
  apps: Record<string, string>;
  models: { planner: string; qllm: string; spoke: string };
}

/**
 * A tenant with demo apps registered and approved, a policy that sends the planner and q-llm roles
 * to the fake server under names unique to this world, and a frontend key. Planning is in apps mode
 * (plans name `app.functionality`) unless the policy says otherwise; catalog-mode worlds bind the
 * apps to a catalog (catalog-kit.ts).
 */
export async function hubWorld(
  appNames: string[],
  policy: Record<string, unknown> = {},
  clearances: Record<string, string> = {},
  options: HubWorldOptions = {},
): Promise<HubWorld> {
  const tenant = await createTenant();
  const dev = (await issueKey(tenant, "developer")).secret;
  const frontend = (await issueKey(tenant, "frontend")).secret;
  const world = uniqueWorld("hub");
  const apps: Record<string, string> = {};
  const catalogMode = (policy.planning as { mode?: string } | undefined)?.mode === "catalog";
  const bindings: Record<string, Record<string, string>> = {};
  if (catalogMode) {
    const catalog = options.catalog ?? mirrorCatalog(appNames);
    const put = await api("PUT", "/v1/admin/catalog", { key: tenant.adminKey, body: { entries: catalog } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    for (const name of appNames) bindings[name] = options.bindings?.[name] ?? mirrorBindings(name, catalog);
  }
  for (const name of appNames) {
    const clearance = {
      health: "secret",
      mail: "confidential",
      bank: "confidential",
      drive: "confidential",
      inboxpilot: "confidential",
      ...clearances,
    }[name];
    apps[name] = (
      await registerDemoApp(tenant, dev, name, world, {
        ...(clearance && { clearance }),
        ...(catalogMode && { bindings: bindings[name] }),
        ...(options.edit?.[name] && { edit: options.edit[name] }),
        ...(options.approval?.[name] && { approval: options.approval[name] }),
      })
    ).id;
  }
  const models = { planner: `${world}-planner`, qllm: `${world}-qllm`, spoke: `${world}-spoke` };
  const role = (model: string) => ({
    provider: "openai",
    baseURL: FAKE_BASE_URL,
    model,
    apiKey: "test-key",
    ...options.model,
  });
  const put = await api("PUT", "/v1/admin/policy", {
    key: tenant.adminKey,
    body: {
      planning: { mode: "apps" },
      ...policy,
      models: { planner: role(models.planner), qllm: role(models.qllm), spoke: role(models.spoke) },
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return { tenant, frontend, world, apps, models };
}

export interface HubWorldOptions {
  /** Catalog mode: the tenant's catalog (default: one entry per functionality, see mirrorCatalog). */
  catalog?: CatalogEntryInput[];
  /** Catalog mode: per app, functionality → entry (default: the entry of the same name). */
  bindings?: Record<string, Record<string, string>>;
  /** Settings added to every model role (e.g. `{output: "strict"}`). */
  model?: Record<string, unknown>;
  /** Per app, changes to its manifest before it registers. */
  edit?: Record<string, (manifest: HttpManifestInput) => HttpManifestInput>;
  /** Per app, more of the admin's approval body (e.g. confirmed `destinations`). */
  approval?: Record<string, Record<string, unknown>>;
}

export type CatalogEntryInput = {
  name: string;
  description: string;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  irreversible?: boolean;
  output?: { confidentiality: string; integrity?: string };
  destinations?: string[];
};

/**
 * A catalog as an admin might write it for the demo apps: one entry per functionality, named as
 * the app names it (so the same plans run in both modes), with the admin's own short description
 * and the app's schemas stripped of every description and title.
 */
export function mirrorCatalog(appNames: string[]): CatalogEntryInput[] {
  return demoManifests(APPS_BASE, "catalog")
    .filter((m) => appNames.includes(m.name))
    .flatMap((m) =>
      m.functionalities.map((fn) => ({
        name: `${m.name}.${fn.name}`,
        description: `${fn.name.replaceAll("_", " ")} (${m.name})`,
        request: bare(fn.request),
        response: bare(fn.response),
        irreversible: fn.irreversible ?? false,
        ...(fn.output && { output: fn.output }),
        ...(fn.destinations && { destinations: fn.destinations }),
      })),
    );
}

function mirrorBindings(app: string, catalog: CatalogEntryInput[]): Record<string, string> {
  const manifest = demoManifests(APPS_BASE, "catalog").find((m) => m.name === app);
  return Object.fromEntries(
    (manifest?.functionalities ?? [])
      .filter((fn) => catalog.some((e) => e.name === `${app}.${fn.name}`))
      .map((fn) => [fn.name, `${app}.${fn.name}`]),
  );
}

export async function openSession(
  w: HubWorld,
  options: { private?: boolean; userId?: string; roles?: string[] } = {},
): Promise<string> {
  const res = await api("POST", "/v1/sessions", {
    key: w.frontend,
    body: {
      userId: options.userId ?? "alice",
      private: options.private ?? false,
      ...(options.roles && { roles: options.roles }),
    },
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

export interface QueryResult {
  id: string;
  status: string;
  display: Array<{
    key: string;
    title: string | null;
    value?: unknown;
    redacted: boolean;
    untrusted: boolean;
  }>;
  plan: unknown;
  trace: Array<{ type: string; data: Record<string, unknown> }>;
  error: { code: string; message: string; details?: unknown } | null;
}

const TERMINAL = new Set(["completed", "failed", "rejected", "awaiting_consent"]);

export async function ask(
  w: HubWorld,
  sid: string,
  text: string,
  headers: Record<string, string> = {},
  apps?: Record<string, string | string[]>,
): Promise<string> {
  const body = { text, ...(apps && { apps }) };
  const res = await api("POST", `/v1/sessions/${sid}/queries`, { key: w.frontend, body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return (res.body as { id: string }).id;
}

/** Polls the query over HTTP until it stops (finished, or waiting for the user). */
export async function settle(
  w: HubWorld,
  sid: string,
  qid: string,
  timeoutMs = 20_000,
): Promise<QueryResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend });
    expect(res.status).toBe(200);
    const query = res.body as QueryResult;
    if (TERMINAL.has(query.status)) return query;
    if (Date.now() > deadline) throw new Error(`query ${qid} still ${query.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Plan-writing shorthands for scripted planners.
export const lit = (value: unknown) => ({ lit: value });
export const ref = (name: string, ...path: Array<string | number>) =>
  path.length ? { ref: name, path } : { ref: name };
export const tool = (out: string, name: string, args: Record<string, unknown>) => ({
  kind: "tool",
  out,
  tool: name,
  args,
  intent: `run ${name}`,
  semantics: `result of ${name}`,
});
export const display = (value: unknown, title?: string) => ({
  kind: "display",
  value,
  ...(title && { title }),
});

export interface ConsentView {
  id: string;
  kind: string;
  queryId: string;
  from?: string[];
  to?: string;
  functionality: string;
  data: unknown;
  assessment: { verdict: "expected" | "warning"; reasons: string[] };
  scopes: string[];
  options?: Array<{ tool: string; app: string }>;
  status: string;
}

export async function pendingConsents(w: HubWorld, sid: string): Promise<ConsentView[]> {
  const res = await api("GET", `/v1/sessions/${sid}/consents?status=pending`, { key: w.frontend });
  expect(res.status).toBe(200);
  return (res.body as { consents: ConsentView[] }).consents;
}

export async function answer(
  w: HubWorld,
  sid: string,
  consentId: string,
  body: { decision: "allow" | "deny"; scope?: string; choice?: string },
): Promise<{ status: number; body: unknown }> {
  return api("POST", `/v1/sessions/${sid}/consents/${consentId}`, {
    key: w.frontend,
    body: { scope: "once", ...body },
  });
}

/** Starts a query over RPC with controls the HTTP API never sets (a defence switched off). */
export async function startWith(
  w: HubWorld,
  sid: string,
  text: string,
  options: {
    ifc?: "on" | "off";
    consent?: "on" | "off";
    isolation?: "on" | "off";
    visorOff?: "S" | "T" | "I";
    pins?: "on" | "off";
    artifactGrants?: "named" | "broad";
    ruleScope?: "on" | "off";
    endorseFirst?: "on" | "off";
  },
  apps: Record<string, string | string[]> = {},
): Promise<string> {
  const hub = rpc<HubDO>(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)));
  const started = await hub.startQuery(text, null, options, null, apps);
  if (!started.ok) throw new Error(`could not start: ${started.code}`);
  return started.query.id;
}

export const qllm = (
  out: string,
  inputs: Record<string, unknown>,
  prompt: string,
  properties: Record<string, unknown>,
) => ({
  kind: "qllm",
  out,
  inputs,
  prompt,
  schema: { type: "object", properties, required: Object.keys(properties) },
  intent: prompt,
  semantics: `answer to: ${prompt}`,
});

/** Waits until the hub asks the user something, whatever step the query is in (a relay's consents too). */
export async function nextConsent(w: HubWorld, sid: string): Promise<ConsentView> {
  for (let i = 0; i < 100; i++) {
    const [consent] = await pendingConsents(w, sid);
    if (consent) return consent;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no consent was asked");
}

/** A contact's address flows from the contacts app into a calendar invite: a data_share consent. */
export const INVITE_PLAN = {
  steps: [
    tool("c", "contacts.lookup", { name: lit("landlord") }),
    tool("ev", "calendar.create_event", {
      title: lit("Flat viewing"),
      date: lit("2026-10-05"),
      participants: { arr: [ref("c", "email")] },
    }),
    display(ref("ev")),
  ],
};
export const INVITE_QUERY = "Invite my landlord to a Flat viewing on 2026-10-05";

/**
 * INVITE_PLAN's participants come from the contacts app, untrusted by default: an address is a
 * destination and keeps the top floor (#43), which refuses the plan. These worlds are about what is
 * asked next, so their tenant lowers that one argument, as DESIGN.md says a tenant may.
 */
/**
 * A relayed ride request's `to` is a destination by name and keeps the top floor (#43), which no
 * agent's request reaches; the visor's T still holds it to the user's words. These worlds are about
 * the relay, so their tenant lowers that one argument on the entry and the apps serving it.
 */
export const RIDE_TO_LOWERED = Object.fromEntries(
  ["ride.quote", "swiftride.quote", "cheapcab.quote"].map((name) => [
    name,
    { args: { to: { minIntegrity: "untrusted" } } },
  ]),
);

/**
 * The address book is the user's own (top integrity) and the plan is made from the catalog (its
 * projection paths the user's too): a call a standing grant may answer for (#43).
 */
export const OWN_BOOK = {
  planning: { mode: "catalog" },
  tools: { "contacts.lookup": { output: { integrity: "user" } } },
};

export function withInvite(policy: Record<string, unknown> = {}): Record<string, unknown> {
  const participants = { args: { participants: { minIntegrity: "untrusted" } } };
  return { ...policy, tools: { "calendar.create_event": participants, ...(policy.tools as object) } };
}

/** What the session's hub still holds of its queries' values: consents' requests and journaled values. */
export async function keptValues(w: HubWorld, sid: string): Promise<string> {
  const { runInDurableObject } = await import("cloudflare:test");
  return runInDurableObject(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)), async (_, state) =>
    JSON.stringify([
      state.storage.sql.exec("SELECT request FROM consents").toArray(),
      state.storage.sql.exec("SELECT value FROM journal").toArray(),
    ]),
  );
}
