import { z } from "@hono/zod-openapi";
import { CatalogEntry } from "./catalog.ts";
import { withoutAnnotations } from "./compat.ts";
import { type Functionality, JsonSchemaObject } from "./manifest.ts";

/**
 * A catalog entry proposed at review for a functionality no entry serves yet: its schemas are the
 * functionality's own, so the binding holds as proposed, and its description is left empty for the
 * admin to write. An app's words never reach the catalog (the planner reads the catalog, and an
 * app's description is its developer's, possibly an attacker's): schema annotations (descriptions,
 * titles, examples, defaults) are dropped too. What stays is structure the binding needs: property
 * names, enum values, patterns, the functionality's name in the entry's.
 *
 * What the app claims about itself is not proposed either, since an entry is the admin's promise
 * and the planner trusts it: the answer's integrity is left to its default (the bottom, untrusted),
 * not the level the app declared for itself; the entry is irreversible, whatever the app says, and
 * names no destinations, so every argument counts as one. The admin relaxes these knowingly.
 */
export const CatalogEntryProposal = CatalogEntry.extend({
  description: z.literal("").openapi({ description: "Always empty: the admin writes it" }),
  request: JsonSchemaObject,
  response: JsonSchemaObject,
}).openapi("CatalogEntryProposal");
export type CatalogEntryProposal = z.infer<typeof CatalogEntryProposal>;

export const Proposal = z
  .object({
    functionality: z.string(),
    entry: CatalogEntryProposal,
    /** Entries already in the catalog that this functionality could serve as they stand. */
    fits: z.array(z.string()),
  })
  .openapi("CatalogProposal");
export type Proposal = z.infer<typeof Proposal>;

const ENTRY_NAME = /^[a-z][a-z0-9_-]{0,39}\.[a-z][a-z0-9_-]{0,63}$/;

/** The entry proposed for `fn` of the app `app`, named so no entry in `taken` has its name. */
export function proposeEntry(
  app: string,
  fn: Functionality,
  taken: ReadonlySet<string>,
): CatalogEntryProposal {
  return {
    name: freeName(fn.category ?? `${app.slice(0, 40)}.${fn.name}`, taken),
    description: "",
    request: withoutAnnotations(fn.request) as Record<string, unknown>,
    response: withoutAnnotations(fn.response) as Record<string, unknown>,
    irreversible: true,
    output: { confidentiality: fn.output.confidentiality },
    destinations: [],
  };
}

/** `base`, or `base-2`, `base-3`… when it is taken; always a valid entry name. */
function freeName(base: string, taken: ReadonlySet<string>): string {
  const [group, action] = (ENTRY_NAME.test(base) ? base : "app.functionality").split(".") as [string, string];
  for (let i = 1; ; i++) {
    const suffix = i === 1 ? "" : `-${i}`;
    const name = `${group}.${action.slice(0, 64 - suffix.length)}${suffix}`;
    if (!taken.has(name)) return name;
  }
}
