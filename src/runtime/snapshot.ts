import * as z from "zod";
import type { ArtifactMetadata, ServingAppInfo } from "../contracts.ts";
import { type Catalog, type Label, type Policy, policyLattices } from "../policy/index.ts";
import { LabelSchema } from "./records.ts";

/** What the plan was checked against, stored with the query so replays run against the same world. */
export const SnapshotSchema = z.object({
  catalog: z.record(
    z.string(),
    z.object({
      irreversible: z.boolean(),
      output: LabelSchema,
      clearance: z.string(),
      requestSchema: z.record(z.string(), z.unknown()),
    }),
  ),
  /** `app.functionality` → the app id that serves it. */
  apps: z.record(z.string(), z.string()),
  /** app id → the approved version the plan was checked against: the only one its calls may reach. */
  versions: z.record(z.string(), z.number()),
  artifacts: z.record(z.string(), z.object({ label: LabelSchema })),
  /** `app.functionality` → its shared category (e.g. ride.quote), where the manifest names one. */
  categories: z.record(z.string(), z.string()),
  /** category → every approved functionality of it: the options of an app_selection consent. */
  alternatives: z.record(
    z.string(),
    z.array(z.object({ tool: z.string(), app: z.string(), description: z.string() })),
  ),
});
export type PlanningSnapshot = z.infer<typeof SnapshotSchema> & { catalog: Catalog };
export type AppOption = PlanningSnapshot["alternatives"][string][number];

export function snapshotOf(
  apps: readonly ServingAppInfo[],
  artifacts: readonly ArtifactMetadata[],
  policy: Policy,
): PlanningSnapshot {
  const l = policyLattices(policy);
  const snapshot: PlanningSnapshot = {
    catalog: {},
    apps: {},
    versions: {},
    artifacts: {},
    categories: {},
    alternatives: {},
  };
  const catalog: Record<string, Catalog[string]> = {};
  for (const app of apps) {
    for (const fn of app.manifest.functionalities) {
      const key = `${app.name}.${fn.name}`;
      if (fn.category) {
        snapshot.categories[key] = fn.category;
        const options = snapshot.alternatives[fn.category] ?? [];
        options.push({ tool: key, app: app.name, description: fn.description });
        snapshot.alternatives[fn.category] = options;
      }
      const output: Label = {
        confidentiality: fn.output.confidentiality,
        integrity: fn.output.integrity ?? l.integrity.bottom,
      };
      catalog[key] = {
        irreversible: fn.irreversible,
        output,
        clearance: app.clearance,
        requestSchema: fn.request,
      };
      snapshot.apps[key] = app.appId;
      snapshot.versions[app.appId] = app.version;
    }
  }
  for (const a of artifacts) snapshot.artifacts[a.id] = { label: a.label };
  return { ...snapshot, catalog };
}
