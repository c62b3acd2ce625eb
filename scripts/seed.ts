/**
 * Seeds the demo tenant on first start and remembers it in .lattice/demo.json (git-ignored): keys,
 * the demo apps (HTTP ones and the notes MCP app) registered by the developer key and approved by the
 * admin key, their signing
 * secrets handed to the demo apps Worker, and a policy that uses the offline scripted model.
 * On a later start the stored keys are checked; if local state was wiped, a fresh tenant is seeded.
 * A reused tenant follows the demo apps to where they serve now (another PORT, or PORT + 1 taken):
 * each app that moved gets a new version at the new address, approved as the one it replaces was.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { demoManifests, demoMcpManifests } from "../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../examples/tenant/catalog.ts";
import type { ManifestInput } from "../src/apps/manifest.ts";
import { type AppView, misplacedApps } from "./demo-apps.ts";
import { apiCall, createTenant } from "./lib.ts";

export interface Demo {
  api: string;
  apps: string;
  tenantId: string;
  keys: { admin: string; developer: string; frontend: string };
  appIds: Record<string, string>;
}

const FILE = ".lattice/demo.json";
const WORLD = "demo";

/** Clearance given at approval: what each app may receive (DESIGN.md: default internal). */
const CLEARANCE: Record<string, string> = {
  mail: "confidential",
  drive: "confidential",
  bank: "confidential",
  calendar: "confidential",
  health: "secret",
};

/**
 * The demo tenant's policy: catalog planning (the planner reads only the catalog below), the
 * DSL.md example's relaxations (a mail's words as a sanitised payload), and the offline scripted model.
 */
export const DEMO_POLICY = {
  planning: { mode: "catalog" },
  tools: {
    // A mail's words may come from what the user read, so long as they add no link, address or
    // account no trusted value holds (DESIGN.md, "Asking less").
    "mail.send": {
      args: {
        body: { role: "payload", sanitise: "no-foreign-references" },
        subject: { role: "payload", sanitise: "no-foreign-references" },
      },
    },
    // A bill's amount, currency and number are the bill's (content): the payment's consent shows
    // them as such and is asked every time (irreversible), and no standing rule answers a call
    // that carries content's values. The IBAN has no such floor: it must be the user's or a
    // saved payee's, never one a bill wrote.
    "bank.send_money": {
      args: {
        amount: { role: "control", minIntegrity: "untrusted" },
        currency: { role: "control", minIntegrity: "untrusted" },
        subject: { role: "payload", sanitise: "no-foreign-references" },
      },
    },
    // The address book is what the user saved: its entries are theirs, and its IBANs are the saved
    // payees a payment's IBAN is compared with (DESIGN.md, "Asking less": trustedValues).
    "contacts.lookup": { output: { integrity: "user" }, trustedValues: ["iban"] },
    "contacts.list": { output: { integrity: "user" }, trustedValues: ["contacts[].iban"] },
  },
  models: { default: { provider: "scripted", model: "demo" } },
  // Chat frontends send their title and tag completions to lattice-plain (docs/integrations/openai.md).
  plainModel: { enabled: true },
};

/**
 * The demo apps as their developer registers them at `apps`: the HTTP ones and the notes MCP app.
 * misbehave is a test fixture, not a demo app: planners in the demo never see it; shadynotes is the
 * malicious MCP server of the security tests and bench, not a demo app either.
 */
export function demoAppManifests(apps: string, world = WORLD): ManifestInput[] {
  return [
    ...demoManifests(apps, world).filter((m) => m.name !== "misbehave"),
    ...demoMcpManifests(apps, world).filter((m) => m.name === "notes"),
  ];
}

/**
 * `file`: where the keys are remembered (null: nowhere, for a test's own throwaway stack); `world`:
 * the demo apps' world (a test's own, so it does not replace the signing secrets of another's).
 */
export async function seedDemo(where: {
  api: string;
  apps: string;
  operatorSecret: string;
  file?: string | null;
  world?: string;
}): Promise<Demo> {
  const file = where.file === undefined ? FILE : where.file;
  const world = where.world ?? WORLD;
  const known = file && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Demo) : null;
  if (known && (await works(where.api, known.keys.admin))) {
    await followApps(where.api, known, demoAppManifests(where.apps, world));
    return save(file, { ...known, api: where.api, apps: where.apps });
  }

  const tenant = await createTenant(where.api, where.operatorSecret, "demo");
  const call = (key: string) => (method: string, path: string, body?: unknown) =>
    apiCall(where.api, key, method, path, body);
  const admin = call(tenant.adminKey);
  const issue = async (role: string) =>
    ((await admin("POST", "/v1/admin/keys", { role, label: `demo ${role}` })) as { secret: string }).secret;
  const keys = {
    admin: tenant.adminKey,
    developer: await issue("developer"),
    frontend: await issue("frontend"),
  };
  const developer = call(keys.developer);

  const appIds: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  // Each developer registers; an MCP app's functionalities are imported from its server's tools.
  const registered: Array<{ manifest: ManifestInput; id: string }> = [];
  for (const manifest of demoAppManifests(where.apps, world)) {
    const app = (await developer("POST", "/v1/apps", manifest)) as {
      id: string;
      secret: string;
      app: { versions: Array<{ manifest: ManifestInput }> };
    };
    registered.push({ manifest: app.app.versions[0]!.manifest, id: app.id });
    appIds[manifest.name] = app.id;
    // An MCP app's calls are not signed: its server gets the bearer token it was registered with.
    if (!manifest.mcp) secrets[manifest.name] = app.secret;
  }
  // The admin writes the catalog, then binds each app to it at review.
  const catalog = demoCatalog(registered.map((r) => r.manifest));
  await admin("PUT", "/v1/admin/catalog", { entries: catalog });
  for (const { manifest, id } of registered) {
    const clearance = CLEARANCE[manifest.name] ?? "internal";
    const bindings = demoBindings(manifest, catalog);
    await admin("POST", `/v1/admin/apps/${id}/versions/1/approve`, { clearance, bindings });
  }
  const handed = await fetch(`${where.apps}/w/${encodeURIComponent(world)}/_demo/secrets`, {
    method: "PUT",
    body: JSON.stringify(secrets),
  });
  if (!handed.ok) throw new Error(`handing app secrets to the demo apps failed: ${handed.status}`);
  await admin("PUT", "/v1/admin/policy", DEMO_POLICY);
  return save(file, { api: where.api, apps: where.apps, tenantId: tenant.tenantId, keys, appIds });
}

/**
 * Each demo app whose serving version calls another address than `wanted` names, through the path
 * a real tenant takes: its developer submits a version at the new address (an MCP app's tools are
 * imported again from there), and the admin approves it with the clearance and bindings it had.
 */
async function followApps(api: string, demo: Demo, wanted: readonly ManifestInput[]): Promise<void> {
  const { apps } = (await apiCall(api, demo.keys.developer, "GET", "/v1/apps")) as { apps: AppView[] };
  for (const moved of misplacedApps(apps, wanted)) {
    // An app none serves is no move: the readiness check (demoProblems) says what is wrong.
    if (moved.kind !== "moved") continue;
    const path = `/v1/apps/${moved.app.id}`;
    const next = (await apiCall(api, demo.keys.developer, "PUT", path, moved.manifest)) as AppView;
    const version = Math.max(...next.versions.map((v) => v.version));
    const { clearance, bindings } = moved.serving;
    await apiCall(
      api,
      demo.keys.admin,
      "POST",
      `/v1/admin/apps/${moved.app.id}/versions/${version}/approve`,
      {
        ...(clearance && { clearance }),
        bindings,
      },
    );
  }
}

/**
 * What keeps the demo from working, asked through its own keys: none when the admin key answers,
 * the frontend key mints a user token, every demo app serves at `demo.apps`, and the demo apps hold
 * the signing secrets of the HTTP ones. npm start says
 * "running" only when there is none (the API's /healthz answers long before).
 */
export async function demoProblems(demo: Demo, world = WORLD): Promise<string[]> {
  const problems: string[] = [];
  const key = async (role: string, call: () => Promise<unknown>) => {
    try {
      return await call();
    } catch (e) {
      problems.push(`the ${role} key: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  };
  const call = (k: string, method: string, path: string, body?: unknown) => () =>
    apiCall(demo.api, k, method, path, body);
  await key("admin", call(demo.keys.admin, "GET", "/v1/admin/keys"));
  await key("frontend", call(demo.keys.frontend, "POST", "/v1/users/alex/tokens", { ttlSeconds: 60 }));
  const mine = (await key("developer", call(demo.keys.developer, "GET", "/v1/apps"))) as {
    apps: AppView[];
  } | null;
  const wanted = demoAppManifests(demo.apps, world);
  if (mine) {
    for (const m of misplacedApps(mine.apps, wanted))
      problems.push(`${m.kind === "moved" ? m.app.name : m.name}: ${m.problem}`);
  }
  // A signed call is refused by a demo app that holds no secret for it (their state wiped alone).
  const state = (await fetch(`${demo.apps}/w/${encodeURIComponent(world)}/_demo/state`)
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null)) as { secretsConfigured: string[] } | null;
  if (!state) problems.push(`the demo apps at ${demo.apps} do not answer`);
  for (const m of state ? wanted : []) {
    if (!m.mcp && !state!.secretsConfigured.includes(m.name))
      problems.push(`${m.name}: the demo apps hold no signing secret for it`);
  }
  return problems;
}

async function works(api: string, adminKey: string): Promise<boolean> {
  const res = await fetch(`${api}/v1/admin/keys`, { headers: { Authorization: `Bearer ${adminKey}` } });
  return res.status === 200;
}

function save(file: string | null, demo: Demo): Demo {
  if (!file) return demo;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
