import { z } from "@hono/zod-openapi";

/**
 * How a catalog entry's consent reads (consent-view.ts): the view's kind and, for each of its roles,
 * the request path that fills it (`{kind: "payment", payee: "name", iban: "iban", amount: "amount"}`).
 * The tenant admin declares it; without one the hub infers a shape from the request schema. Paths
 * are dotted property names with `[]` for a list's items, as `destinations`.
 */
export const VIEW_ROLES = {
  mail: ["to", "cc", "subject", "body"],
  payment: ["payee", "iban", "amount", "currency", "reference"],
  booking: ["from", "to", "when", "what"],
  share: ["what", "with"],
} as const;
export type ViewShapeKind = keyof typeof VIEW_ROLES;

const Path = z.string().min(1).max(200);
const roles = <K extends ViewShapeKind>(kind: K) =>
  z
    .object({
      kind: z.literal(kind),
      ...Object.fromEntries(VIEW_ROLES[kind].map((r) => [r, Path.optional()])),
    })
    .strict();

export const CatalogView = z
  .discriminatedUnion("kind", [roles("mail"), roles("payment"), roles("booking"), roles("share")])
  .openapi("CatalogView", {
    description: "How this entry's consent reads: a view kind and, per role, the request path that fills it.",
  });
/** The view declared for an entry: its kind and role → request path. */
export type CatalogView = { kind: ViewShapeKind } & Partial<Record<string, string>>;
