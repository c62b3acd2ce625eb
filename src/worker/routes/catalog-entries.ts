import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { CatalogEntry } from "../../apps/catalog.ts";
import type { CatalogEdit, EditFailure } from "../../objects/tenant/catalog-entries.ts";
import type { AppEnv } from "../env.ts";
import { conflict, invalid, notFound, preconditionFailed } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import {
  authErrors,
  conflictError,
  jsonBody,
  jsonResponse,
  notFoundError,
  preconditionError,
} from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

/**
 * One catalog entry at a time (issue #33): each write is a new catalog version, checked exactly as
 * the whole-catalog PUT (catalog.ts). Concurrency is optimistic: every answer carries the catalog's
 * version as its `ETag`, and a write with `If-Match: "<version>"` is refused with 412 unless that
 * version is still in force. Without `If-Match` a write applies to whatever is in force.
 */

const security = [{ bearer: [] }];
const NameParam = z.object({ name: z.string().min(1).max(105) });
const Broken = z
  .array(z.object({ app: z.string(), functionality: z.string(), entry: z.string() }))
  .openapi({ description: "Bindings of serving apps that the new catalog no longer lets hold" });
const ListedEntry = CatalogEntry.extend({
  boundBy: z
    .array(z.object({ app: z.string(), functionality: z.string() }))
    .openapi({ description: "Serving apps' functionalities bound to it whose bindings hold" }),
}).openapi("ListedCatalogEntry");
const Written = z
  .object({ version: z.number().int(), entry: CatalogEntry, broken: Broken })
  .openapi("CatalogEntryWritten");

/** `If-Match`: `"3"`, `W/"3"` or `3` name version 3; `*` (or none) any version. */
export const IfMatch = z.object({
  "if-match": z
    .string()
    .regex(/^(\*|(W\/)?"?\d{1,15}"?)$/, 'a catalog version, as the ETag gave it: "3"')
    .optional()
    .openapi({
      description: 'The catalog version the change was made against, e.g. "3"; 412 if another is in force',
    }),
});

export function expectedVersion(header: string | undefined): number | undefined {
  if (header === undefined || header === "*") return undefined;
  return Number(header.replace(/^W\//, "").replaceAll('"', ""));
}

export const etag = (version: number) => `"${version}"`;

const list = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary: "The catalog's entries, each with the serving apps bound to it, filtered",
  security,
  request: {
    query: z.object({
      bound: z.enum(["true", "false"]).optional().openapi({
        description: "Only entries some serving app's binding holds for (true), or none (false)",
      }),
      app: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .openapi({ description: "Only entries this serving app (by name) is bound to" }),
      q: z
        .string()
        .min(1)
        .max(105)
        .optional()
        .openapi({ description: "Only entries whose name starts with this" }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ version: z.number().int(), entries: z.array(ListedEntry) }).openapi("CatalogEntries"),
      "The entries; ETag is the catalog's version",
    ),
    ...authErrors,
  },
});

const get = createRoute({
  method: "get",
  path: "/{name}",
  tags: ["admin"],
  summary: "One catalog entry",
  security,
  request: { params: NameParam },
  responses: {
    200: jsonResponse(
      z.object({ version: z.number().int(), entry: ListedEntry }),
      "The entry; ETag is the catalog's version",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const create = createRoute({
  method: "post",
  path: "/",
  tags: ["admin"],
  summary: "Add an entry (a new catalog version); 409 if the name is taken",
  security,
  request: { headers: IfMatch, ...jsonBody(CatalogEntry) },
  responses: {
    201: jsonResponse(Written, "The new version and the entry, defaults filled in"),
    ...authErrors,
    ...conflictError,
    ...preconditionError,
  },
});

const replace = createRoute({
  method: "put",
  path: "/{name}",
  tags: ["admin"],
  summary: "Replace an entry (a new catalog version); bindings it breaks are listed",
  security,
  request: { params: NameParam, headers: IfMatch, ...jsonBody(CatalogEntry) },
  responses: {
    200: jsonResponse(Written, "The new version and the entry"),
    ...authErrors,
    ...notFoundError,
    ...preconditionError,
  },
});

const remove = createRoute({
  method: "delete",
  path: "/{name}",
  tags: ["admin"],
  summary: "Delete an entry (a new catalog version); bindings it breaks are listed",
  security,
  request: { params: NameParam, headers: IfMatch },
  responses: {
    200: jsonResponse(z.object({ version: z.number().int(), broken: Broken }), "The new version"),
    ...authErrors,
    ...notFoundError,
    ...preconditionError,
  },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const catalogEntryRoutes = base
  .openapi(list, async (c) => {
    const { bound, app, q } = c.req.valid("query");
    const filter = { ...(bound && { bound: bound === "true" }), ...(app && { app }), ...(q && { q }) };
    const listed = await tenantOf(c).catalogEntries(filter);
    c.header("ETag", etag(listed.version));
    return c.json(listed, 200);
  })
  .openapi(get, async (c) => {
    const { name } = c.req.valid("param");
    const { version, entries } = await tenantOf(c).catalogEntries({});
    const entry = entries.find((e) => e.name === name);
    if (!entry) throw notFound("catalog entry");
    c.header("ETag", etag(version));
    return c.json({ version, entry }, 200);
  })
  .openapi(create, async (c) => {
    const entry = c.req.valid("json");
    const written = await edit(c, { op: "create", entry }, c.req.valid("header")["if-match"]);
    return c.json({ ...written, entry }, 201);
  })
  .openapi(replace, async (c) => {
    const entry = c.req.valid("json");
    const { name } = c.req.valid("param");
    const written = await edit(c, { op: "replace", name, entry }, c.req.valid("header")["if-match"]);
    return c.json({ ...written, entry }, 200);
  })
  .openapi(remove, async (c) => {
    const { name } = c.req.valid("param");
    return c.json(await edit(c, { op: "delete", name }, c.req.valid("header")["if-match"]), 200);
  });

async function edit(c: Context<AppEnv>, change: CatalogEdit, ifMatch: string | undefined) {
  const result = await tenantOf(c).editCatalog(change, expectedVersion(ifMatch));
  if (!result.ok) throw refusal(result);
  c.header("ETag", etag(result.version));
  return { version: result.version, broken: result.broken };
}

function refusal(result: EditFailure) {
  if (result.code === "not_found") return notFound("catalog entry");
  if (result.code === "name_taken") return conflict(result.message);
  if (result.code === "version_mismatch") return preconditionFailed(result.message, result.details);
  return invalid(result.message, result.details);
}
