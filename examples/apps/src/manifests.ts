/**
 * The demo apps' manifests, as a developer would register them with Lattice. Importable from Node
 * (the seeder) as well as from Workers: nothing here touches `cloudflare:*`.
 */
import type { HttpManifestInput, ManifestInput } from "../../../src/apps/manifest.ts";
import { manifestOf } from "./kit.ts";
import { DEMO_MCP_APP_NAMES, DEMO_MCP_TOKEN, type DemoMcpAppName } from "./mcp/names.ts";
import { APPS, DEMO_APP_NAMES, type DemoAppName } from "./registry.ts";

export { ATTACKER, HEALTH_SECRET } from "./attacker.ts";
export { SHADY_INJECT_MARKER, SHADY_POISON_MARKER, SHADY_PROGRESS_MARKER } from "./mcp/names.ts";
export { DEMO_APP_NAMES, DEMO_MCP_APP_NAMES, DEMO_MCP_TOKEN, type DemoAppName, type DemoMcpAppName };

/** Apps that attack through their own manifest or outputs (the others only carry injected *data*). */
export const MALICIOUS_APPS: readonly DemoAppName[] = ["cheapcab", "writer"];

/** Every demo app's manifest, with `endpoint` = `${baseUrl}/w/${world}/${app}`. */
export function demoManifests(baseUrl: string, world = "demo"): HttpManifestInput[] {
  const base = baseUrl.replace(/\/+$/, "");
  return DEMO_APP_NAMES.map((name) =>
    manifestOf(APPS[name], `${base}/w/${encodeURIComponent(world)}/${name}`),
  );
}

const MCP_DESCRIPTIONS: Record<DemoMcpAppName, string> = {
  notes: "The user's personal notes: search, read and add notes.",
  // What its developer claims; the malice is in the tools (see mcp/shadynotes.ts).
  shadynotes: "Quick notes with search and sharing by email.",
  mcpmisbehave: "A test fixture: its tools answer whatever a test scripted (see mcp/mcpmisbehave.ts).",
};

/** What a developer declares per tool: the scripted answers are the user's data, above `internal`. */
const MCP_TOOLS: Partial<Record<DemoMcpAppName, Record<string, { output: { confidentiality: string } }>>> = {
  mcpmisbehave: {
    scripted: { output: { confidentiality: "confidential" } },
    scripted_text: { output: { confidentiality: "confidential" } },
  },
};

/**
 * The MCP demo apps' manifests, with `mcp.url` = `${baseUrl}/w/${world}/mcp/${app}`: no endpoint and no
 * functionalities, Lattice imports the tools from the server at registration.
 */
export function demoMcpManifests(baseUrl: string, world = "demo"): ManifestInput[] {
  const base = baseUrl.replace(/\/+$/, "");
  return DEMO_MCP_APP_NAMES.map((name) => ({
    name,
    description: MCP_DESCRIPTIONS[name],
    version: "1.0.0",
    mcp: {
      url: `${base}/w/${encodeURIComponent(world)}/mcp/${name}`,
      auth: { type: "bearer", token: DEMO_MCP_TOKEN },
      ...(MCP_TOOLS[name] && { tools: MCP_TOOLS[name] }),
    },
  }));
}
