import { COLLABORATION_TOOL } from "../contracts.ts";
import { pathResolves } from "../policy/index.ts";
import { endpointProblem, type Mode } from "./egress.ts";
import type { Manifest } from "./manifest.ts";
import { schemaProblems } from "./schemas.ts";

export interface FieldProblem {
  field: string;
  message: string;
}

export interface CheckContext {
  mode: Mode;
  confidentialityLevels: readonly string[];
  integrityLevels: readonly string[];
}

/** The URLs an MCP block sends requests or secrets to: each must pass the egress guard. */
export function mcpUrlProblems(manifest: Manifest, mode: Mode): FieldProblem[] {
  if (!manifest.mcp) return [];
  const { url, auth } = manifest.mcp;
  const urls: Array<[string, string]> = [["mcp.url", url]];
  if (auth.type === "client_credentials") urls.push(["mcp.auth.tokenUrl", auth.tokenUrl]);
  const sameOrigin: FieldProblem[] = [];
  // Checked again once discovery has filled them (mcp-import.ts): discovered URLs pass the same guard.
  if (auth.type === "oauth" && auth.tokenUrl !== undefined) {
    urls.push(["mcp.auth.tokenUrl", auth.tokenUrl]);
    if (auth.authorizationUrl !== undefined) urls.push(["mcp.auth.authorizationUrl", auth.authorizationUrl]);
    // The user's tokens and the client secret go to these: the token endpoint's own server only.
    const origin = new URL(auth.tokenUrl).origin;
    for (const [field, value] of [
      ["mcp.auth.revocationUrl", auth.revocationUrl],
      ["mcp.auth.issuer", auth.issuer],
    ] as const) {
      if (value === undefined) continue;
      if (field === "mcp.auth.revocationUrl") urls.push([field, value]);
      if (new URL(value).origin !== origin)
        sameOrigin.push({ field: `body.${field}`, message: "must be on the token URL's origin" });
    }
  }
  return [
    ...sameOrigin,
    ...urls.flatMap(([field, value]) => {
      const problem = endpointProblem(value, mode);
      return problem ? [{ field: `body.${field}`, message: problem.replace(/^endpoint/, "URL") }] : [];
    }),
  ];
}

/** What zod's shape check cannot see: schema validity, unique names, egress, label levels, agent wiring. */
export function manifestProblems(manifest: Manifest, ctx: CheckContext): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field: `body.${field}`, message });

  if (manifest.endpoint !== undefined) {
    const endpoint = endpointProblem(manifest.endpoint, ctx.mode);
    if (endpoint) add("endpoint", endpoint);
  } else if (manifest.functionalities.some((f) => f.tool === undefined) || manifest.agent) {
    add("endpoint", "HTTP functionalities and agents are called at an endpoint: name one");
  }
  if (manifest.functionalities.length === 0)
    add("functionalities", "an app offers at least one functionality");

  const seen = new Set<string>();
  manifest.functionalities.forEach((fn, i) => {
    const at = `functionalities.${i}`;
    if (seen.has(fn.name)) add(`${at}.name`, `duplicate functionality name "${fn.name}"`);
    seen.add(fn.name);
    for (const part of ["request", "response"] as const) {
      for (const message of schemaProblems(fn[part])) add(`${at}.${part}`, message);
    }
    if (!ctx.confidentialityLevels.includes(fn.output.confidentiality)) {
      add(`${at}.output.confidentiality`, `unknown level; one of ${ctx.confidentialityLevels.join(", ")}`);
    }
    if (fn.output.integrity !== undefined && !ctx.integrityLevels.includes(fn.output.integrity)) {
      add(`${at}.output.integrity`, `unknown level; one of ${ctx.integrityLevels.join(", ")}`);
    }
    destinationProblems(fn.request, fn.destinations, `${at}.destinations`, add);
  });

  if (manifest.agent?.mcp) {
    const mcp = endpointProblem(manifest.agent.mcp, ctx.mode);
    if (mcp) add("agent.mcp", mcp.replace(/^endpoint/, "MCP server URL"));
  }
  if (manifest.agent) {
    const tools = new Set<string>();
    manifest.agent.tools.forEach((tool, i) => {
      if (tools.has(tool.name)) add(`agent.tools.${i}.name`, `duplicate tool name "${tool.name}"`);
      tools.add(tool.name);
      for (const message of schemaProblems(tool.parameters)) add(`agent.tools.${i}.parameters`, message);
      destinationProblems(tool.parameters, tool.destinations, `agent.tools.${i}.destinations`, add);
    });
    for (const [fn, allowed] of Object.entries(manifest.agent.functionalities)) {
      if (!seen.has(fn)) add(`agent.functionalities.${fn}`, "names no functionality of this app");
      for (const tool of allowed) {
        if (!tools.has(tool) && tool !== COLLABORATION_TOOL)
          add(`agent.functionalities.${fn}`, `names unknown tool "${tool}"`);
      }
    }
  }
  return problems;
}

function destinationProblems(
  schema: Record<string, unknown>,
  paths: readonly string[] | undefined,
  at: string,
  add: (field: string, message: string) => void,
): void {
  (paths ?? []).forEach((path, j) => {
    if (!pathResolves(schema, path)) add(`${at}.${j}`, `"${path}" is not a property of the request`);
  });
}
