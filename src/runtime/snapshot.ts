import * as z from "zod";
import type { CatalogEntry as CatalogEntryDoc } from "../apps/catalog.ts";
import type { ArtifactMetadata, ServingAppInfo } from "../contracts.ts";
import {
  type Catalog,
  type CatalogEntry,
  type Label,
  type Lattices,
  type Policy,
  policyLattices,
} from "../policy/index.ts";
import { LabelSchema } from "./records.ts";

/**
 * What a plan is verified and run against, stored with the query so replays see the same world.
 * Plans call *names*: in catalog mode the tenant's catalog entries, in apps mode `app.functionality`.
 * Each name has the targets that may serve it; the hub, never the planner, picks one.
 */

const EntrySchema = z.object({
  irreversible: z.boolean(),
  output: LabelSchema,
  clearance: z.string(),
  requestSchema: z.record(z.string(), z.unknown()),
});

const TargetSchema = z.object({
  /** The name labels and tool policies are keyed by: the entry (catalog mode) or the app's own tool. */
  tool: z.string(),
  app: z.string(),
  appId: z.string(),
  functionality: z.string(),
  /** The approved version the plan was checked against: the only one its calls may reach. */
  version: z.number(),
  /** This target's view for the flow check: the app's clearance, the join of both output labels. */
  entry: EntrySchema,
  /** The app's own description, shown as the app's words when the user picks among targets. */
  description: z.string(),
  /** Catalog mode: the entry's response schema, which the hub checks each answer against too. */
  response: z.record(z.string(), z.unknown()).optional(),
  /** Catalog mode: how the entry's consent reads (catalog-view.ts), as the admin declared it. */
  view: z.record(z.string(), z.string()).optional(),
  /** The app's MCP server wants each user's own OAuth authorization before calls. */
  authorize: z.literal(true).optional(),
});
export type Target = z.infer<typeof TargetSchema> & { entry: CatalogEntry };

/** How a consent names a target among its options: the app's own functionality. */
export const targetId = (t: Target): string => `${t.app}.${t.functionality}`;

export const SnapshotSchema = z.object({
  mode: z.enum(["catalog", "apps"]),
  /** What the verifier checks plans against, by name (in catalog mode: the strictest of its targets). */
  catalog: z.record(z.string(), EntrySchema),
  /** name → the serving functionalities that may run it, in a stable order. */
  targets: z.record(z.string(), z.array(TargetSchema)),
  /** Catalog mode: request paths where data or money goes, per name (for assessments and the visor). */
  destinations: z.record(z.string(), z.array(z.string())),
  /** name → what a choice among its targets is about: the category (apps mode) or the entry (catalog mode). */
  choices: z.record(z.string(), z.string()),
  artifacts: z.record(z.string(), z.object({ label: LabelSchema })),
});
export type PlanningSnapshot = Omit<z.infer<typeof SnapshotSchema>, "catalog" | "targets"> & {
  catalog: Catalog;
  targets: Record<string, Target[]>;
};

/** What the planner reads of one callable name. */
export interface PlannerTool {
  tool: string;
  description: string;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  irreversible?: true;
  /** Catalog mode: how many apps serve the entry, where more than one does (never which). */
  providers?: number;
}

export interface Planning {
  snapshot: PlanningSnapshot;
  /** The planner's view of what it may call (catalog mode: the admin's text only). */
  tools: PlannerTool[];
  /** Apps mode only: each app's own description, as the planner reads it there. */
  appDescriptions: Record<string, string>;
}

/** One app's functionality as the target of `name`, checked with the app's own clearance. */
function targetOf(
  name: string,
  app: ServingAppInfo,
  fn: ServingAppInfo["manifest"]["functionalities"][number],
  entry: Omit<CatalogEntry, "clearance">,
): Target {
  return {
    tool: name,
    app: app.name,
    appId: app.appId,
    functionality: fn.name,
    version: app.version,
    entry: { ...entry, clearance: app.clearance },
    description: fn.description,
    ...(fn.tool && app.manifest.mcp?.auth.type === "oauth" && { authorize: true as const }),
  };
}

/** Apps mode: every approved functionality under its own name; its category's others are alternatives. */
function appsSnapshot(
  apps: readonly ServingAppInfo[],
  l: Lattices,
): Omit<Planning, "snapshot"> & Pick<PlanningSnapshot, "catalog" | "targets" | "choices"> {
  const catalog: Record<string, CatalogEntry> = {};
  const own: Record<string, Target> = {};
  const byCategory: Record<string, Target[]> = {};
  const category: Record<string, string> = {};
  const tools: PlannerTool[] = [];
  const appDescriptions: Record<string, string> = {};
  for (const app of apps) {
    appDescriptions[app.name] = app.manifest.description;
    for (const fn of app.manifest.functionalities) {
      const name = `${app.name}.${fn.name}`;
      const output: Label = {
        confidentiality: fn.output.confidentiality,
        integrity: fn.output.integrity ?? l.integrity.bottom,
      };
      const target = targetOf(name, app, fn, {
        irreversible: fn.irreversible,
        output,
        requestSchema: fn.request,
      });
      catalog[name] = target.entry;
      own[name] = target;
      if (fn.category) {
        category[name] = fn.category;
        byCategory[fn.category] = [...(byCategory[fn.category] ?? []), target];
      }
      tools.push({
        tool: name,
        description: fn.description,
        request: fn.request,
        response: fn.response,
        ...(fn.irreversible && { irreversible: true as const }),
      });
    }
  }
  const targets: Record<string, Target[]> = {};
  const choices: Record<string, string> = {};
  for (const [name, target] of Object.entries(own)) {
    const group = category[name] ? (byCategory[category[name]] ?? []) : [];
    // The planned functionality first: without a choice to make, it is the one that runs.
    targets[name] = [target, ...group.filter((t) => t.tool !== name)];
    choices[name] = category[name] ?? name;
  }
  return { catalog, targets, choices, tools, appDescriptions };
}

/** Catalog mode: each entry with at least one serving bound app; the planner reads the admin's text only. */
function catalogSnapshot(
  entries: readonly CatalogEntryDoc[],
  apps: readonly ServingAppInfo[],
  l: Lattices,
): Omit<Planning, "snapshot"> & Pick<PlanningSnapshot, "catalog" | "targets" | "destinations" | "choices"> {
  const conf = l.confidentiality;
  const higher = (a: string, b: string) => (conf.rank(a) >= conf.rank(b) ? a : b);
  const lower = (a: string, b: string) => (conf.rank(a) <= conf.rank(b) ? a : b);
  const catalog: Record<string, CatalogEntry> = {};
  const targets: Record<string, Target[]> = {};
  const destinations: Record<string, string[]> = {};
  const tools: PlannerTool[] = [];
  // Each entry's bound functionalities, apps in name order: one pass over the apps, not one per entry.
  type Functionality = ServingAppInfo["manifest"]["functionalities"][number];
  const serving = new Map<string, Array<[ServingAppInfo, Functionality]>>();
  for (const app of [...apps].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const fn of app.manifest.functionalities) {
      const name = app.bindings[fn.name];
      if (typeof name === "string") serving.set(name, [...(serving.get(name) ?? []), [app, fn]]);
    }
  }
  for (const doc of entries) {
    const bound: Target[] = [];
    for (const [app, fn] of serving.get(doc.name) ?? []) {
      // An answer is at least as secret as the entry says and as the app declares; never more trusted than the entry.
      const output: Label = {
        confidentiality: higher(doc.output.confidentiality, fn.output.confidentiality),
        integrity: doc.output.integrity ?? l.integrity.bottom,
      };
      const entry = { irreversible: doc.irreversible, output, requestSchema: doc.request };
      bound.push({
        ...targetOf(doc.name, app, fn, entry),
        response: doc.response,
        ...(doc.view && { view: { ...doc.view } as Record<string, string> }),
      });
    }
    if (!bound.length) continue;
    targets[doc.name] = bound;
    destinations[doc.name] = doc.destinations;
    // The verifier sees the strictest of the targets: the lowest clearance, the highest output level.
    catalog[doc.name] = {
      irreversible: doc.irreversible,
      output: {
        confidentiality: bound.map((t) => t.entry.output.confidentiality).reduce(higher),
        integrity: doc.output.integrity ?? l.integrity.bottom,
      },
      clearance: bound.map((t) => t.entry.clearance).reduce(lower),
      requestSchema: doc.request,
    };
    const apps = new Set(bound.map((t) => t.app)).size;
    tools.push({
      tool: doc.name,
      description: doc.description,
      request: doc.request,
      response: doc.response,
      ...(doc.irreversible && { irreversible: true as const }),
      ...(apps > 1 && { providers: apps }),
    });
  }
  const choices = Object.fromEntries(Object.keys(targets).map((name) => [name, name]));
  return { catalog, targets, destinations, choices, tools, appDescriptions: {} };
}

export function planningOf(input: {
  policy: Policy;
  catalog: readonly CatalogEntryDoc[];
  apps: readonly ServingAppInfo[];
  artifacts: readonly ArtifactMetadata[];
  /** The names the session's roles may use (null: every name). */
  allowed: ReadonlySet<string> | null;
}): Planning {
  const l = policyLattices(input.policy);
  const mode = input.policy.planning.mode;
  const built =
    mode === "catalog"
      ? catalogSnapshot(input.catalog, input.apps, l)
      : { ...appsSnapshot(input.apps, l), destinations: {} };
  const keep = (name: string) => input.allowed === null || input.allowed.has(name);
  const artifacts: PlanningSnapshot["artifacts"] = {};
  for (const a of input.artifacts) artifacts[a.id] = { label: a.label };
  const catalog = Object.fromEntries(Object.entries(built.catalog).filter(([name]) => keep(name)));
  const targets = Object.fromEntries(Object.entries(built.targets).filter(([name]) => keep(name)));
  return {
    snapshot: { mode, catalog, targets, destinations: built.destinations, choices: built.choices, artifacts },
    tools: built.tools.filter((t) => keep(t.tool)),
    appDescriptions: built.appDescriptions,
  };
}
