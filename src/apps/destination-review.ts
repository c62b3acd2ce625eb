import { z } from "@hono/zod-openapi";
import { type DestinationSource, pathResolves, schemaDestinations } from "../policy/index.ts";
import type { Functionality, Manifest } from "./manifest.ts";

/**
 * Destinations at review. The rule (policy/inferred-destinations.ts) infers destinations a
 * developer did not declare; the admin sees, per functionality and agent tool, the declared and the
 * inferred ones, and may confirm a tool's whole list at approval. Only that confirmation turns the
 * inference off for the tool: a developer's own `destinations: []` does not.
 */

const Paths = z.array(z.string().min(1).max(200)).max(32);

/** The admin's word at approval: per name, the whole list of its destination paths. */
export const ConfirmedDestinations = z
  .object({
    functionalities: z.record(z.string(), Paths).optional(),
    tools: z.record(z.string(), Paths).optional(),
  })
  .strict()
  .openapi("ConfirmedDestinations", {
    description:
      "Per functionality and agent tool name: its whole list of destination paths, as the admin confirms it " +
      "([] = sends nowhere). A confirmed list replaces the inferred destinations; the declared ones always count.",
  });
export type ConfirmedDestinations = z.infer<typeof ConfirmedDestinations>;

const DestinationView = z.object({
  declared: z
    .array(z.string())
    .nullable()
    .openapi({ description: "The developer's paths; null: none declared" }),
  inferred: z.array(z.string()).openapi({
    description: "Paths the rule adds from the schema's formats and names (values can add more at call time)",
  }),
  confirmed: z.array(z.string()).nullable().openapi({ description: "The admin's list at approval, if any" }),
});
export const DestinationsView = z
  .object({
    functionalities: z.record(z.string(), DestinationView),
    tools: z.record(z.string(), DestinationView),
  })
  .openapi("DestinationsView", {
    description: "Per functionality and agent tool: declared, inferred and confirmed destination paths",
  });
export type DestinationsView = z.infer<typeof DestinationsView>;

const own = (r: Record<string, string[]> | undefined, name: string): string[] | undefined =>
  r && Object.hasOwn(r, name) ? r[name] : undefined;

function viewOf(schema: unknown, declared: string[] | undefined, confirmed: string[] | undefined) {
  return {
    declared: declared ?? null,
    inferred: schemaDestinations(schema).filter((p) => !declared?.includes(p)),
    confirmed: confirmed ?? null,
  };
}

/** What the review shows of a version's destinations. */
export function destinationsView(manifest: Manifest, confirmed: ConfirmedDestinations): DestinationsView {
  return {
    functionalities: Object.fromEntries(
      manifest.functionalities.map((f) => [
        f.name,
        viewOf(f.request, f.destinations, own(confirmed.functionalities, f.name)),
      ]),
    ),
    tools: Object.fromEntries(
      (manifest.agent?.tools ?? []).map((t) => [
        t.name,
        viewOf(t.parameters, t.destinations, own(confirmed.tools, t.name)),
      ]),
    ),
  };
}

/** An admin's confirmation names the version's own functionalities and tools, and paths of their schemas. */
export function confirmationProblems(
  manifest: Manifest | undefined,
  confirmed: ConfirmedDestinations | undefined,
): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  if (!manifest || !confirmed) return problems;
  const check = (
    kind: "functionalities" | "tools",
    schemas: ReadonlyMap<string, Record<string, unknown>>,
  ) => {
    for (const [name, paths] of Object.entries(confirmed[kind] ?? {})) {
      const field = `body.destinations.${kind}.${name}`;
      const schema = schemas.get(name);
      if (!schema) {
        problems.push({
          field,
          message: `not ${kind === "tools" ? "an agent tool" : "a functionality"} of this version`,
        });
        continue;
      }
      paths.forEach((path, i) => {
        if (!pathResolves(schema, path))
          problems.push({ field: `${field}.${i}`, message: `"${path}" is not a property of its schema` });
      });
    }
  };
  check("functionalities", new Map(manifest.functionalities.map((f) => [f.name, f.request])));
  check("tools", new Map((manifest.agent?.tools ?? []).map((t) => [t.name, t.parameters])));
  return problems;
}

/**
 * A functionality or agent tool as the destination rule reads it: the developer's paths joined with
 * the admin's, its schema, and whether the admin confirmed the list.
 */
export function destinationSource(
  item: { irreversible: boolean; destinations?: string[] },
  schema: Record<string, unknown>,
  confirmed: string[] | undefined,
): DestinationSource & { destinations?: string[] } {
  const paths =
    item.destinations === undefined && confirmed === undefined
      ? undefined
      : [...new Set([...(item.destinations ?? []), ...(confirmed ?? [])])];
  return {
    irreversible: item.irreversible,
    ...(paths && { destinations: paths }),
    parameters: schema,
    confirmed: confirmed !== undefined,
  };
}

export function functionalitySource(fn: Functionality, confirmed: ConfirmedDestinations | undefined) {
  return destinationSource(fn, fn.request, own(confirmed?.functionalities, fn.name));
}

export function toolSource(
  tool: NonNullable<Manifest["agent"]>["tools"][number],
  confirmed: ConfirmedDestinations | undefined,
) {
  return destinationSource(tool, tool.parameters, own(confirmed?.tools, tool.name));
}

/**
 * A shared name served by several functionalities (a category, for collaboration): every path any
 * of them declares or the rule finds in its schema, the first's schema for what values reveal, and
 * confirmed only if every one of them is. Undeclared by all and irreversible: left undeclared, so
 * every value counts.
 */
export function servedSource(
  served: ReadonlyArray<readonly [Functionality, ConfirmedDestinations | undefined]>,
): DestinationSource & { destinations?: string[] } {
  const sources = served.map(([fn, confirmed]) => functionalitySource(fn, confirmed));
  const irreversible = sources.some((s) => s.irreversible);
  const declared = sources.some((s) => s.destinations !== undefined);
  const paths = new Set(
    sources.flatMap((s) => [
      ...(s.destinations ?? []),
      ...(s.confirmed ? [] : schemaDestinations(s.parameters)),
    ]),
  );
  return {
    irreversible,
    ...((declared || !irreversible) && { destinations: [...paths] }),
    parameters: sources[0]?.parameters,
    confirmed: sources.length > 0 && sources.every((s) => s.confirmed),
  };
}
