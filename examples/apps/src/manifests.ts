/**
 * The demo apps' manifests, as a developer would register them with Lattice. Importable from Node
 * (the seeder) as well as from Workers: nothing here touches `cloudflare:*`.
 */
import type { ManifestInput } from "../../../src/apps/manifest.ts";
import { manifestOf } from "./kit.ts";
import { APPS, DEMO_APP_NAMES, type DemoAppName } from "./registry.ts";

export { ATTACKER, HEALTH_SECRET } from "./attacker.ts";
export { DEMO_APP_NAMES, type DemoAppName };

/** Apps that attack through their own manifest or outputs (the others only carry injected *data*). */
export const MALICIOUS_APPS: readonly DemoAppName[] = ["cheapcab", "writer"];

/** Every demo app's manifest, with `endpoint` = `${baseUrl}/w/${world}/${app}`. */
export function demoManifests(baseUrl: string, world = "demo"): ManifestInput[] {
  const base = baseUrl.replace(/\/+$/, "");
  return DEMO_APP_NAMES.map((name) =>
    manifestOf(APPS[name], `${base}/w/${encodeURIComponent(world)}/${name}`),
  );
}
