/**
 * The part of an OpenAPI 3.1 document the API reference reads, and the pure steps from it to what a
 * page shows: operations grouped by tag, `$ref`s resolved, `allOf`s of objects merged. No I/O: the
 * reference is a function of the document alone, so a test renders it without a Worker or a browser.
 */

/** A JSON Schema as @hono/zod-openapi writes it (only the keywords the reference shows). */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  example?: unknown;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface Content {
  schema?: Schema;
}

export interface Response {
  description?: string;
  content?: Record<string, Content>;
}

export interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; description?: string; content?: Record<string, Content> };
  responses?: Record<string, Response>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    securitySchemes?: Record<string, { type: string; scheme?: string; description?: string }>;
  };
  tags?: Array<{ name: string; description?: string }>;
}

/** The methods an OpenAPI path item may hold, in the order a reference lists them. */
const METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace"] as const;
export type Method = (typeof METHODS)[number];

export interface OperationEntry {
  method: Method;
  path: string;
  /** A stable anchor, e.g. `post-v1-admin-catalog-entries`. */
  anchor: string;
  tag: string;
  op: Operation;
}

export interface TagGroup {
  tag: string;
  anchor: string;
  description?: string;
  operations: OperationEntry[];
}

const UNTAGGED = "other";

export const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** Every operation of the document, grouped by its first tag in the order tags first appear. */
export function operationsByTag(doc: OpenApiDocument): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  const described = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? UNTAGGED;
      let group = groups.get(tag);
      if (!group) {
        group = { tag, anchor: `tag-${slug(tag)}`, description: described.get(tag), operations: [] };
        groups.set(tag, group);
      }
      group.operations.push({ method, path, anchor: slug(`${method} ${path}`), tag, op });
    }
  }
  return [...groups.values()];
}

const SCHEMA_REF = "#/components/schemas/";
const PARAMETER_REF = "#/components/parameters/";

/** The component name a `$ref` points at, or null for a reference outside `components/schemas`. */
export function refName(schema: Schema): string | null {
  return schema.$ref?.startsWith(SCHEMA_REF) ? schema.$ref.slice(SCHEMA_REF.length) : null;
}

/**
 * The schema a `$ref` points at (its own description kept over the target's: it says what the field
 * is for here), or the schema itself. An unknown reference resolves to an empty schema ("any").
 */
export function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  const name = refName(schema);
  if (!name) return schema;
  const target = doc.components?.schemas?.[name] ?? {};
  return schema.description ? { ...target, description: schema.description } : target;
}

export function resolveParameter(doc: OpenApiDocument, p: Parameter | { $ref: string }): Parameter | null {
  if (!("$ref" in p)) return p;
  return p.$ref.startsWith(PARAMETER_REF)
    ? (doc.components?.parameters?.[p.$ref.slice(PARAMETER_REF.length)] ?? null)
    : null;
}

/**
 * An `allOf` whose parts are all objects, as one object (properties and required merged): how
 * zod's `.extend` of a named schema comes out (IssuedApiKey = ApiKey + secret). Any other `allOf`
 * is left for the page to show as "all of".
 */
export function mergeAllOf(doc: OpenApiDocument, schema: Schema): Schema {
  if (!schema.allOf) return schema;
  const parts = schema.allOf.map((s) => mergeAllOf(doc, resolve(doc, s)));
  if (!parts.every((p) => p.properties || p.type === "object")) return schema;
  const { allOf: _, ...rest } = schema;
  return {
    ...rest,
    type: "object",
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
    required: [...new Set(parts.flatMap((p) => p.required ?? []))],
  };
}

/** The types a schema admits, `null` last: ["string", "null"] reads "string or null". */
export function typesOf(schema: Schema): string[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length) return [...types.filter((t) => t !== "null"), ...types.filter((t) => t === "null")];
  if (schema.properties || schema.additionalProperties) return ["object"];
  if (schema.items) return ["array"];
  if (schema.enum?.length) return [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
  return [];
}

const range = (min: number | undefined, max: number | undefined, unit: string) => {
  if (min !== undefined && max !== undefined)
    return min === max ? `exactly ${min} ${unit}` : `${min}–${max} ${unit}`;
  if (min !== undefined) return `at least ${min} ${unit}`;
  if (max !== undefined) return `at most ${max} ${unit}`;
  return null;
};

/** The constraints of a schema in words, one short fact each (formats, bounds, pattern, default). */
export function factsOf(schema: Schema): string[] {
  const facts: string[] = [];
  if (schema.format) facts.push(`format ${schema.format}`);
  const chars = range(schema.minLength, schema.maxLength, "characters");
  if (chars) facts.push(chars);
  const items = range(schema.minItems, schema.maxItems, "items");
  if (items) facts.push(items);
  if (schema.minimum !== undefined) facts.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) facts.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) facts.push(`≤ ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) facts.push(`< ${schema.exclusiveMaximum}`);
  if (schema.additionalProperties === false && schema.properties) facts.push("no other fields");
  return facts;
}

/** Statuses below 400 are answers; 4xx and 5xx are errors (shown in the error shape). */
export const isError = (status: string) => /^[45]/.test(status);
