/**
 * The rows that differ between an approved manifest and a pending one. Lists of named things
 * (functionalities, an MCP server's tool definitions, an agent's tools) are keyed by name, so a diff
 * pairs each with its old self and one changed description is one row, not the whole list.
 */
const KEYED = new Set(["functionalities", "mcp.definitions", "agent.tools"]);

export interface DiffRow {
  path: string;
  before: string | undefined;
  after: string | undefined;
}

function flatten(value: unknown, path: string, out: Record<string, string>): Record<string, string> {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.length && path) out[path] = "{}";
    for (const k of keys) flatten((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
  } else if (
    Array.isArray(value) &&
    KEYED.has(path) &&
    value.every((f) => f && typeof (f as { name?: unknown }).name === "string")
  ) {
    if (!value.length) out[path] = "[]";
    for (const f of value as Array<{ name: string }>) flatten(f, `${path}[${f.name}]`, out);
  } else out[path] = JSON.stringify(value);
  return out;
}

export function manifestDiff(before: unknown, after: unknown): DiffRow[] {
  const a = flatten(before ?? {}, "", {});
  const b = flatten(after, "", {});
  const paths = [...Object.keys(a), ...Object.keys(b).filter((p) => !(p in a))].sort();
  return paths.filter((p) => a[p] !== b[p]).map((p) => ({ path: p, before: a[p], after: b[p] }));
}
