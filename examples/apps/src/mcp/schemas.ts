/**
 * Tool schemas as plain JSON Schema (not zod), so what `tools/list` shows is exactly what is written
 * here: only the keywords Lattice accepts in an imported tool's input schema. Validation uses the
 * cf-worker validator, as Workers forbid the code generation ajv relies on.
 */
import {
  fromJsonSchema,
  type JsonSchemaType,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";

export const validator = new CfWorkerJsonSchemaValidator();

/** A JSON Schema for the SDK; `T` is what the schema vouches for once it validated the value. */
export const schema = <T>(json: JsonSchemaType): StandardSchemaWithJSON<T, T> =>
  fromJsonSchema<T>(json, validator);

/** A closed object; every property is required unless listed in `optional`. */
export const object = (
  properties: Record<string, JsonSchemaType>,
  optional: string[] = [],
): JsonSchemaType => ({
  type: "object",
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});

export const string = (description: string, extra: JsonSchemaType = {}): JsonSchemaType => ({
  type: "string",
  description,
  ...extra,
});

export const noteSchema = object({
  id: string("The note's id"),
  title: string("The note's title"),
  body: string("The note's text"),
});

/** The text content that accompanies structured content (for clients that only read text). */
export const structured = <T extends Record<string, unknown>>(value: T) => ({
  content: [{ type: "text" as const, text: JSON.stringify(value) }],
  structuredContent: value,
});

export const text = (value: string, isError = false) => ({
  content: [{ type: "text" as const, text: value }],
  ...(isError && { isError: true }),
});
