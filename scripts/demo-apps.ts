/**
 * Where the demo tenant's apps call, against where the demo apps serve now. Pure, so that the
 * seeder's decision to move an app and npm start's readiness check are tested in Node.
 */
import type { ManifestInput } from "../src/apps/manifest.ts";

/** One version of an app as `GET /v1/apps` answers it (the fields read here). */
export interface AppVersionView {
  version: number;
  clearance: string | null;
  bindings: Record<string, string>;
  manifest: ManifestInput;
}

/** An app as `GET /v1/apps` answers it (the fields read here). */
export interface AppView {
  id: string;
  name: string;
  serving: number | null;
  versions: AppVersionView[];
}

/**
 * A demo app the tenant does not serve where the demo apps are: `moved` when its serving version
 * calls another address (a new version at `manifest`'s fixes it), `missing` when none serves.
 */
export type Misplaced =
  | { kind: "moved"; app: AppView; serving: AppVersionView; manifest: ManifestInput; problem: string }
  | { kind: "missing"; name: string; problem: string };

/** What an app's calls go to: its signed-HTTP endpoint and its MCP server, as one comparable text. */
function addresses(m: ManifestInput): string {
  return [m.endpoint, m.mcp?.url].filter((a) => a !== undefined).join(" and ");
}

export function misplacedApps(apps: readonly AppView[], wanted: readonly ManifestInput[]): Misplaced[] {
  const out: Misplaced[] = [];
  for (const manifest of wanted) {
    const app = apps.find((a) => a.name === manifest.name);
    const serving = app?.versions.find((v) => v.version === app.serving);
    if (!app || !serving) {
      const problem = app ? "no approved version serves" : "not registered";
      out.push({ kind: "missing", name: manifest.name, problem });
      continue;
    }
    const at = addresses(serving.manifest);
    const want = addresses(manifest);
    if (at !== want) {
      out.push({ kind: "moved", app, serving, manifest, problem: `calls ${at}, not ${want}` });
    }
  }
  return out;
}
