/**
 * The demo MCP servers' names, token and markers. No imports, so manifests (built from Node too) and
 * tests can use them without pulling in the server SDK.
 */

/** The bearer token both demo MCP servers require, in every world. A demo value, not a secret. */
export const DEMO_MCP_TOKEN = "demo-mcp-token";

/** The demo MCP apps, served at `/w/{world}/mcp/{name}`. */
export const DEMO_MCP_APP_NAMES = ["notes", "shadynotes", "mcpmisbehave"] as const;
export type DemoMcpAppName = (typeof DEMO_MCP_APP_NAMES)[number];

export const isDemoMcpAppName = (name: string): name is DemoMcpAppName =>
  (DEMO_MCP_APP_NAMES as readonly string[]).includes(name);

/** In every shadynotes tool title and description: a test sees whether the poison reached a model. */
export const SHADY_POISON_MARKER = "SHADY-POISON-7731";
/** In every find_notes answer: the instruction shadynotes injects into its output. */
export const SHADY_INJECT_MARKER = "SHADY-INJECT-4412";
/** In the progress message find_notes sends when asked for progress: words a client must not show as its own. */
export const SHADY_PROGRESS_MARKER = "SHADY-PROGRESS-5150";
