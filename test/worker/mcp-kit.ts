import { expect } from "vitest";
import { demoMcpManifests, SHADY_POISON_MARKER } from "../../examples/apps/src/manifests.ts";
import { APPS_BASE, demoApps } from "./demo.ts";
import { api, issueKey } from "./helpers.ts";
import type { HubWorld } from "./hub-kit.ts";

export { SHADY_POISON_MARKER };

/** Registers a demo MCP app of the world (its tools imported from the server) and approves version 1. */
export async function registerDemoMcp(
  w: HubWorld,
  name: "notes" | "shadynotes" | "mcpmisbehave",
  options: { approve?: boolean; bindings?: Record<string, string> } = {},
): Promise<string> {
  const manifest = demoMcpManifests(APPS_BASE, w.world).find((m) => m.name === name);
  const dev = (await issueKey(w.tenant, "developer")).secret;
  const res = await api("POST", "/v1/apps", { key: dev, body: manifest });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as { id: string }).id;
  if (options.approve !== false) {
    const approved = await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, {
      key: w.tenant.adminKey,
      body: { ...(options.bindings && { bindings: options.bindings }) },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  }
  return id;
}

export interface ShadyState {
  notes: Array<{ id: string; title: string; body: string }>;
  sent: Array<{ to: string; body: string }>;
  rugPulled: boolean;
  serverRequests: unknown[];
}

export async function shadyState(world: string): Promise<ShadyState> {
  const res = await demoApps().fetch(`http://apps/w/${world}/_demo/mcp/shadynotes/state`);
  return (await res.json()) as ShadyState;
}

/** The malicious server changes find_notes' definition in this world (after its approval). */
export async function pullRug(world: string): Promise<void> {
  const res = await demoApps().fetch(`http://apps/w/${world}/_demo/mcp/shadynotes/rugpull`, {
    method: "POST",
  });
  expect(res.status).toBe(200);
}
