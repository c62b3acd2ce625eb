import { z } from "@hono/zod-openapi";
import { pathResolves } from "../policy/index.ts";
import { CatalogView } from "./catalog-view.ts";
import type { FieldProblem } from "./check.ts";
import { JsonSchemaObject, OutputLabel } from "./manifest.ts";
import { schemaProblems } from "./schemas.ts";

/**
 * The tenant's catalog: the functionalities the tenant admin describes in their own words. In
 * catalog planning mode it is the planner's only view of apps; each app functionality is bound to
 * an entry at review, and the hub, not the planner, picks the app that serves a step.
 */
export const CatalogEntry = z
  .object({
    name: z
      .string()
      .regex(
        /^[a-z][a-z0-9_-]{0,39}\.[a-z][a-z0-9_-]{0,63}$/,
        "an entry name looks like ride.quote or mail.send",
      ),
    description: z.string().min(1).max(2000),
    request: JsonSchemaObject,
    response: JsonSchemaObject,
    irreversible: z.boolean().default(false),
    /** The least an answer is labeled with; a bound app's own declaration can only raise it. */
    output: OutputLabel.default({ confidentiality: "internal" }),
    /**
     * Request paths where data, messages or money go (recipients, accounts, URLs, phone numbers):
     * dotted property names, `[]` for every item of a list, e.g. `to`, `message.cc[]`.
     */
    destinations: z.array(z.string().min(1).max(200)).max(32).default([]),
    /** How its consent reads for a person (a mail, a payment, …); inferred from `request` when absent. */
    view: CatalogView.optional(),
  })
  .strict()
  .openapi("CatalogEntry");
export type CatalogEntry = z.infer<typeof CatalogEntry>;

export const CatalogDocument = z
  .object({ entries: z.array(CatalogEntry).max(1000) })
  .strict()
  .openapi("CatalogDocument");
export type CatalogDocument = z.infer<typeof CatalogDocument>;

/** What zod cannot see: unique names, usable schemas, label levels, destinations that exist. */
export function catalogProblems(
  doc: CatalogDocument,
  levels: { confidentiality: readonly string[]; integrity: readonly string[] },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  doc.entries.forEach((entry, i) => {
    const at = `body.entries.${i}`;
    const add = (field: string, message: string) => problems.push({ field: `${at}.${field}`, message });
    if (seen.has(entry.name)) add("name", `duplicate entry name "${entry.name}"`);
    seen.add(entry.name);
    for (const part of ["request", "response"] as const) {
      for (const message of schemaProblems(entry[part])) add(part, message);
    }
    if (!levels.confidentiality.includes(entry.output.confidentiality)) {
      add("output.confidentiality", `unknown level; one of ${levels.confidentiality.join(", ")}`);
    }
    if (entry.output.integrity !== undefined && !levels.integrity.includes(entry.output.integrity)) {
      add("output.integrity", `unknown level; one of ${levels.integrity.join(", ")}`);
    }
    entry.destinations.forEach((path, j) => {
      if (!pathResolves(entry.request, path))
        add(`destinations.${j}`, `"${path}" is not a property of the request`);
    });
    for (const [role, path] of Object.entries(entry.view ?? {})) {
      if (role !== "kind" && typeof path === "string" && !pathResolves(entry.request, path))
        add(`view.${role}`, `"${path}" is not a property of the request`);
    }
  });
  return problems;
}
