import { z } from "@hono/zod-openapi";
import { schemaDestinations } from "../policy/index.ts";
import { type ConfirmedDestinations, functionalitySource } from "./destination-review.ts";
import type { Functionality, Manifest, McpToolDefinition } from "./manifest.ts";

/**
 * A version's review, one card per functionality (issue #33, Build 3): what changed against the
 * approved version before it, field by field, and what Lattice makes of it: irreversibility and
 * destinations read through the same source the policy reads (`functionalitySource`), so the
 * console shows what will be enforced and derives nothing itself. Pure.
 */

export const CardStatus = z.enum(["new", "changed", "unchanged", "removed"]);
export type CardStatus = z.infer<typeof CardStatus>;

const CardField = z.object({
  field: z
    .string()
    .openapi({ description: "description, title, annotations, request, response, irreversible…" }),
  appText: z.boolean().openapi({
    description: "Written by the app (or its MCP server): its words, never Lattice's",
  }),
  before: z.string().nullable().openapi({ description: "As approved; null: absent" }),
  after: z.string().nullable().openapi({ description: "As in this version; null: absent (or removed)" }),
});
export type CardField = z.infer<typeof CardField>;

export const ReviewCard = z
  .object({
    name: z.string().openapi({ description: "The functionality" }),
    tool: z.string().nullable().openapi({ description: "The MCP tool it imports, if any" }),
    status: CardStatus,
    binding: z.string().nullable().openapi({ description: "The entry this version binds it to" }),
    previousBinding: z
      .string()
      .nullable()
      .openapi({ description: "The entry the approved version before it binds it to" }),
    irreversible: z.boolean(),
    irreversibleFrom: z.enum(["developer", "mcp-annotations"]).openapi({
      description:
        "Declared by its developer, or read off its MCP annotations (irreversible unless readOnlyHint is true)",
    }),
    destinations: z.object({
      declared: z.array(z.string()).nullable(),
      inferred: z.array(z.string()).openapi({ description: "Paths the rule adds from the schema" }),
      confirmed: z.array(z.string()).nullable(),
      anyArgument: z.boolean().openapi({
        description:
          "Irreversible and nothing declared: every string and number it is given is a destination",
      }),
    }),
    fields: z
      .array(CardField)
      .openapi({ description: "Changed fields first; `before === after` is unchanged" }),
  })
  .openapi("ReviewCard");
export type ReviewCard = z.infer<typeof ReviewCard>;

export const VersionReview = z
  .object({
    version: z.number().int(),
    against: z.number().int().nullable().openapi({
      description: "The newest approved version before this one; null: a new app",
    }),
    cards: z.array(ReviewCard),
  })
  .openapi("VersionReview");
export type VersionReview = z.infer<typeof VersionReview>;

export interface ReviewedVersion {
  version: number;
  manifest: Manifest;
  bindings: Record<string, string>;
  confirmed: ConfirmedDestinations;
}

const text = (v: unknown): string | null =>
  v === undefined ? null : typeof v === "string" ? v : JSON.stringify(v, null, 2);

/** The fields a card compares, in the order it shows them; app-written text marked as such. */
function fieldsOf(fn: Functionality, def: McpToolDefinition | undefined) {
  const rows: Array<[string, boolean, unknown]> = [
    // An MCP tool's text as its server listed it (what the version pins), not the import's copy.
    ["description", true, def ? def.description : fn.description],
    ...(def ? ([["title", true, def.title]] as Array<[string, boolean, unknown]>) : []),
    ...(def ? ([["annotations", true, def.annotations]] as Array<[string, boolean, unknown]>) : []),
    ["request", true, fn.request],
    // A tool with no output schema answers Lattice's own {text} schema, not words of the server's.
    ["response", !fn.tool || fn.tool.structured, fn.response],
    ["irreversible", false, fn.irreversible],
    ["output", false, fn.output],
    ["category", false, fn.category],
    ["destinations", false, fn.destinations],
    ...(fn.tool
      ? ([
          ["retried after a timeout (idempotentHint)", false, fn.tool.idempotent],
          ["structured answers", false, fn.tool.structured],
        ] as Array<[string, boolean, unknown]>)
      : []),
  ];
  return new Map(rows.map(([field, appText, value]) => [field, { appText, value: text(value) }]));
}

const definitionOf = (m: Manifest, fn: Functionality) =>
  fn.tool ? m.mcp?.definitions?.find((d) => d.name === fn.tool!.name) : undefined;

function card(
  fn: Functionality,
  side: ReviewedVersion,
  old: { fn: Functionality; version: ReviewedVersion } | undefined,
  status: CardStatus | null,
): ReviewCard {
  const now = fieldsOf(fn, definitionOf(side.manifest, fn));
  const then = old ? fieldsOf(old.fn, definitionOf(old.version.manifest, old.fn)) : new Map();
  const removed = status === "removed";
  const names = [...new Set([...now.keys(), ...then.keys()])];
  const fields = names.map((field) => {
    const a = then.get(field);
    const b = now.get(field);
    return {
      field,
      appText: (b ?? a)!.appText,
      before: removed ? (b?.value ?? null) : (a?.value ?? null),
      after: removed ? null : (b?.value ?? null),
    };
  });
  const changed = fields.filter((f) => f.before !== f.after);
  // The policy's own reading of the functionality: declared paths with the admin's, and the rule's.
  const source = functionalitySource(fn, removed ? undefined : side.confirmed);
  const declared = fn.destinations ?? null;
  const confirmed = removed ? null : (side.confirmed.functionalities?.[fn.name] ?? null);
  return {
    name: fn.name,
    tool: fn.tool?.name ?? null,
    status: status ?? (!old ? "new" : changed.length ? "changed" : "unchanged"),
    binding: removed ? null : (side.bindings[fn.name] ?? null),
    previousBinding: old?.version.bindings[old.fn.name] ?? null,
    irreversible: fn.irreversible,
    irreversibleFrom: fn.tool ? "mcp-annotations" : "developer",
    destinations: {
      declared,
      inferred: source.confirmed
        ? []
        : schemaDestinations(source.parameters).filter((p) => !declared?.includes(p)),
      confirmed,
      anyArgument: source.destinations === undefined && source.irreversible,
    },
    fields: [...changed, ...fields.filter((f) => f.before === f.after)],
  };
}

/** The cards of `version` against `against` (the approved version before it, if any). */
export function reviewOf(version: ReviewedVersion, against: ReviewedVersion | null): VersionReview {
  const before = new Map((against?.manifest.functionalities ?? []).map((f) => [f.name, f]));
  const names = new Set(version.manifest.functionalities.map((f) => f.name));
  const cards = version.manifest.functionalities.map((fn) => {
    const old = before.get(fn.name);
    return card(fn, version, old && against ? { fn: old, version: against } : undefined, null);
  });
  for (const fn of against?.manifest.functionalities ?? []) {
    if (!names.has(fn.name)) cards.push(card(fn, against!, { fn, version: against! }, "removed"));
  }
  return { version: version.version, against: against?.version ?? null, cards };
}
