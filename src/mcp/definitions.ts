import type { FieldProblem } from "../apps/check.ts";
import { type Functionality, Manifest, type McpServer, type McpToolDefinition } from "../apps/manifest.ts";
import { schemaProblems } from "../apps/schemas.ts";
import { failure, type Result } from "../result.ts";

/**
 * An MCP server's tools as an app's functionalities (pure). Everything the server says about a tool
 * is app-written text: the import maps it into the manifest a tenant admin reviews, and the only
 * things taken on the server's word are the ones that make a tool *stricter*: a tool is irreversible
 * unless it says `readOnlyHint: true`, and its output is untrusted unless it says
 * `openWorldHint: false`, answers in `structuredContent`, and the developer declared its integrity.
 */

/** A tool without an output schema answers text: kept as one untrusted string. */
export const TEXT_RESPONSE = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
  additionalProperties: false,
} as const;

/** The parts of a listed tool that are pinned; anything else a server sends (`_meta`, icons) is not. */
export function definitionOf(tool: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}): McpToolDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
  };
}

/** `getSum` and `get-sum` both become a functionality name (lowercase, from a letter, ≤ 64). */
export function functionalityName(tool: string): string {
  const snake = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_");
  return (/^[a-z]/.test(snake) ? snake : `t_${snake}`).slice(0, 64);
}

/**
 * The functionalities of an MCP server's listed tools under the developer's declarations, or the
 * problems that stop the import (each names its tool). Excluded tools are pinned but not imported.
 */
export function importTools(
  mcp: McpServer,
  definitions: readonly McpToolDefinition[],
  taken: ReadonlySet<string>,
): Result<{ functionalities: Functionality[] }, "tools_refused", FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const add = (tool: string, message: string) =>
    problems.push({ field: `mcp.tools.${tool}`, message: `${message} (or list the tool in mcp.exclude)` });
  const listed = new Set(definitions.map((d) => d.name));
  for (const name of [...Object.keys(mcp.tools ?? {}), ...(mcp.exclude ?? [])]) {
    if (!listed.has(name))
      problems.push({ field: `mcp.tools.${name}`, message: "the server lists no such tool" });
  }
  const names = new Set(taken);
  const functionalities: Functionality[] = [];
  for (const def of definitions) {
    if (mcp.exclude?.includes(def.name)) continue;
    const name = functionalityName(def.name);
    if (names.has(name)) {
      add(def.name, `its functionality name "${name}" is taken`);
      continue;
    }
    names.add(name);
    const settings = mcp.tools?.[def.name];
    const broken = [
      ...(def.inputSchema.type === "object" ? [] : ['inputSchema: must have "type": "object"']),
      ...schemaProblems(def.inputSchema).map((m) => `inputSchema: ${m}`),
      ...(def.outputSchema ? schemaProblems(def.outputSchema).map((m) => `outputSchema: ${m}`) : []),
    ];
    if (broken.length) {
      for (const message of broken.slice(0, 5)) add(def.name, message);
      continue;
    }
    const hint = (key: string) => def.annotations?.[key];
    const structured = def.outputSchema !== undefined;
    const trustable = structured && hint("openWorldHint") === false;
    const integrity = trustable ? settings?.output?.integrity : undefined;
    functionalities.push({
      name,
      description: (def.description || def.title || def.name).slice(0, 4000),
      request: def.inputSchema,
      response: def.outputSchema ?? { ...TEXT_RESPONSE },
      irreversible: hint("readOnlyHint") !== true,
      output: {
        confidentiality: settings?.output?.confidentiality ?? "internal",
        ...(integrity !== undefined && { integrity }),
      },
      ...(settings?.category !== undefined && { category: settings.category }),
      ...(settings?.destinations !== undefined && { destinations: settings.destinations }),
      tool: { name: def.name, idempotent: hint("idempotentHint") === true, structured },
    });
  }
  return problems.length ? refused(problems) : { ok: true, functionalities };
}

/** The JSON text a digest is taken of: keys sorted at every depth, so key order never counts as change. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of each definition's canonical JSON, by tool name: what an approved version pins. */
export async function pinsOf(definitions: readonly McpToolDefinition[]): Promise<Record<string, string>> {
  const entries = await Promise.all(
    definitions.map(async (d) => {
      const bytes = new TextEncoder().encode(canonicalJson(d));
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      return [d.name, Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")] as const;
    }),
  );
  return Object.fromEntries(entries);
}

export interface ToolChange {
  tool: string;
  change: "added" | "removed" | "changed";
  /** For a changed tool: which parts differ (description, inputSchema, annotations…). */
  fields?: string[];
  /** What the change does to the functionality a review approves: "irreversible: true → false"… */
  effects?: string[];
}

/** The changes with what they do to the imported functionalities (irreversibility, labels, retries). */
export function withEffects(
  changes: ToolChange[],
  before: Functionality[],
  after: Functionality[],
): ToolChange[] {
  const of = (fns: Functionality[]) => new Map(fns.filter((f) => f.tool).map((f) => [f.tool!.name, f]));
  const [old, now] = [of(before), of(after)];
  const facts = (f: Functionality | undefined) =>
    f && {
      irreversible: String(f.irreversible),
      confidentiality: f.output.confidentiality,
      integrity: f.output.integrity ?? "untrusted",
      idempotent: String(f.tool?.idempotent ?? false),
      structured: String(f.tool?.structured ?? false),
    };
  return changes.map((c) => {
    const [a, b] = [facts(old.get(c.tool)), facts(now.get(c.tool))];
    if (!a || !b) return c;
    const effects = (Object.keys(a) as Array<keyof typeof a>)
      .filter((k) => a[k] !== b[k])
      .map((k) => `${k}: ${a[k]} → ${b[k]}`);
    return effects.length ? { ...c, effects } : c;
  });
}

/** What differs between a pinned tool list and the server's current one; empty when it holds. */
export function toolChanges(
  pinned: readonly McpToolDefinition[],
  current: readonly McpToolDefinition[],
): ToolChange[] {
  const before = new Map(pinned.map((d) => [d.name, d]));
  const after = new Map(current.map((d) => [d.name, d]));
  const changes: ToolChange[] = [];
  for (const [name, old] of before) {
    const now = after.get(name);
    if (!now) {
      changes.push({ tool: name, change: "removed" });
      continue;
    }
    const keys = ["title", "description", "inputSchema", "outputSchema", "annotations"] as const;
    const fields = keys.filter((k) => canonicalJson(old[k] ?? null) !== canonicalJson(now[k] ?? null));
    if (fields.length) changes.push({ tool: name, change: "changed", fields });
  }
  for (const name of after.keys()) if (!before.has(name)) changes.push({ tool: name, change: "added" });
  return changes;
}

/**
 * A manifest with the server's listed tools imported: its own HTTP functionalities kept, the MCP
 * ones replaced by the import of `definitions` (kept whole in `mcp.definitions`, the pinned text).
 */
export function withImportedTools(
  manifest: Manifest,
  definitions: readonly McpToolDefinition[],
): Result<{ manifest: Manifest }, "tools_refused", FieldProblem[]> {
  if (!manifest.mcp) return { ok: true, manifest };
  const own = manifest.functionalities.filter((f) => f.tool === undefined);
  const imported = importTools(manifest.mcp, definitions, new Set(own.map((f) => f.name)));
  if (!imported.ok) return imported;
  const next = {
    ...manifest,
    functionalities: [...own, ...imported.functionalities],
    mcp: { ...manifest.mcp, definitions: [...definitions] },
  };
  // What is stored must read back: the manifest's own limits (64 functionalities, text lengths) hold.
  const parsed = Manifest.safeParse(next);
  if (!parsed.success) {
    return refused(
      parsed.error.issues.slice(0, 10).map((i) => ({
        field: i.path.join("."),
        message: `${i.message}${i.path[0] === "functionalities" ? " (exclude some tools in mcp.exclude)" : ""}`,
      })),
    );
  }
  return { ok: true, manifest: parsed.data };
}

/** Tools that cannot be imported: each problem names its tool (or the manifest field) and why. */
const refused = (problems: FieldProblem[]) =>
  failure("tools_refused", "some of the MCP server's tools cannot be imported", problems);
