import { type FieldProblem, manifestProblems } from "../../apps/check.ts";
import type { Mode } from "../../apps/egress.ts";
import type { Manifest, McpToolDefinition } from "../../apps/manifest.ts";
import { type ToolChange, withImportedTools } from "../../mcp/definitions.ts";
import { failure, type Result } from "../../result.ts";
import type { Sql } from "../sql.ts";
import * as registry from "./registry.ts";
import { servingApp } from "./serving.ts";

/**
 * The pending version a drift files: the serving manifest with the server's new tools imported,
 * under registration's own checks (label levels, schemas, wiring); else the problems, and none is filed.
 */
export function driftedManifest(
  serving: Manifest,
  definitions: readonly McpToolDefinition[],
  mode: Mode,
  lattices: { confidentiality: readonly string[]; integrity: readonly string[] },
): Result<{ manifest: Manifest }, "tools_refused" | "manifest_refused", FieldProblem[]> {
  const imported = withImportedTools(serving, definitions);
  if (!imported.ok) return imported;
  const problems = manifestProblems(imported.manifest, {
    mode,
    confidentialityLevels: lattices.confidentiality,
    integrityLevels: lattices.integrity,
  });
  return problems.length
    ? failure("manifest_refused", "the imported manifest does not hold", problems)
    : imported;
}

/**
 * A spoke found the server's tools changed since `version` was approved: the app stops, the new
 * definitions wait for review as a pending version (once per distinct change). What to audit, or
 * null when nothing was recorded (a report about a version no longer serving is stale).
 */
export function recordToolDrift(
  sql: Sql,
  report: { appId: string; version: number; changes: ToolChange[]; definitions: McpToolDefinition[] },
  mode: Mode,
  lattices: { confidentiality: readonly string[]; integrity: readonly string[] },
): Record<string, unknown> | null {
  const { appId, version, changes } = report;
  const serving = servingApp(sql, appId);
  if (!serving || serving.version !== version) return null;
  const next = driftedManifest(serving.manifest, report.definitions, mode, lattices);
  const drift = registry.recordDrift(sql, appId, version, changes, next.ok ? next.manifest : null);
  if (!drift) return null;
  return {
    appId,
    version,
    changes,
    pending: drift.pending,
    ...(!next.ok && { importProblems: next.details.slice(0, 5) }),
  };
}
