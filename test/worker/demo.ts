import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import type { HttpManifestInput } from "../../src/apps/manifest.ts";
import { api, type TestTenant } from "./helpers.ts";

/** The demo apps answer any host in tests (outbound fetches route to them); loopback passes dev egress. */
export const APPS_BASE = "http://127.0.0.1:8788";

export const demoApps = () => (env as unknown as { DEMO_APPS: Fetcher }).DEMO_APPS;

let worldCounter = 0;
export const uniqueWorld = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${worldCounter++}`;

export interface RegisteredApp {
  id: string;
  name: string;
  secret: string;
}

/** Registers a demo app as its developer would, hands its secret to the world, and (optionally) approves it. */
export async function registerDemoApp(
  tenant: TestTenant,
  developerKey: string,
  name: string,
  world: string,
  options: {
    approve?: boolean;
    clearance?: string;
    bindings?: Record<string, string>;
    /** More of the admin's approval body (confirmed destinations, say). */
    approval?: Record<string, unknown>;
    /** Changes the manifest before it is registered (an attacking developer's edits). */
    edit?: (manifest: HttpManifestInput) => HttpManifestInput;
  } = {},
): Promise<RegisteredApp> {
  const found = demoManifests(APPS_BASE, world).find((m) => m.name === name);
  const manifest = found && options.edit ? options.edit(structuredClone(found)) : found;
  if (!manifest) throw new Error(`no demo app ${name}`);
  const res = await api("POST", "/v1/apps", { key: developerKey, body: manifest });
  expect(res.status).toBe(201);
  const app = res.body as RegisteredApp;
  const put = await demoApps().fetch(`http://apps/w/${world}/_demo/secrets`, {
    method: "PUT",
    body: JSON.stringify({ [name]: app.secret }),
  });
  expect(put.status).toBe(200);
  if (options.approve !== false) {
    const body = {
      ...(options.clearance && { clearance: options.clearance }),
      ...(options.bindings && { bindings: options.bindings }),
      ...options.approval,
    };
    const approved = await api("POST", `/v1/admin/apps/${app.id}/versions/1/approve`, {
      key: tenant.adminKey,
      body,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  }
  return app;
}

export interface WorldState {
  apps: Record<string, Record<string, unknown>>;
  calls: Array<{
    app: string;
    functionality: string;
    idempotencyKey: string | null;
    verified: boolean;
    repeat: boolean;
    body: unknown;
  }>;
}

export async function worldState(world: string): Promise<WorldState> {
  const res = await demoApps().fetch(`http://apps/w/${world}/_demo/state`);
  expect(res.status).toBe(200);
  return (await res.json()) as WorldState;
}
