import { manifestProblems } from "../../apps/check.ts";
import type { Mode } from "../../apps/egress.ts";
import type { Manifest, McpToolDefinition } from "../../apps/manifest.ts";
import { withImportedTools } from "../../mcp/definitions.ts";

/**
 * The pending version a drift files: the serving manifest with the server's new tools imported,
 * under registration's own checks (label levels, schemas, wiring); else the problems, and none is filed.
 */
export function driftedManifest(
  serving: Manifest,
  definitions: readonly McpToolDefinition[],
  mode: Mode,
  lattices: { confidentiality: readonly string[]; integrity: readonly string[] },
): { ok: true; manifest: Manifest } | { ok: false; problems: Array<{ field: string; message: string }> } {
  const imported = withImportedTools(serving, definitions);
  if (!imported.ok) return imported;
  const problems = manifestProblems(imported.manifest, {
    mode,
    confidentialityLevels: lattices.confidentiality,
    integrityLevels: lattices.integrity,
  });
  return problems.length ? { ok: false, problems } : imported;
}
