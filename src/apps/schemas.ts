import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";

/**
 * JSON Schema checks through @cfworker/json-schema (Workers forbid eval, so no ajv).
 * Manifests' schemas are checked against a deliberately small meta-schema: the keywords an app
 * needs to describe JSON requests and responses. Anything else (remote $ref, odd keywords) is refused
 * rather than half-understood.
 */
const TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"];
const nonNegative = { type: "integer", minimum: 0 };
const META: Schema = {
  $ref: "#/$defs/schema",
  $defs: {
    schema: {
      type: ["object", "boolean"],
      additionalProperties: false,
      properties: {
        $schema: { type: "string" },
        $id: { type: "string" },
        $ref: { type: "string", pattern: "^#" },
        $defs: { type: "object", additionalProperties: { $ref: "#/$defs/schema" } },
        title: { type: "string" },
        description: { type: "string" },
        examples: { type: "array" },
        default: true,
        type: {
          anyOf: [{ enum: TYPES }, { type: "array", items: { enum: TYPES }, minItems: 1, uniqueItems: true }],
        },
        properties: { type: "object", additionalProperties: { $ref: "#/$defs/schema" } },
        required: { type: "array", items: { type: "string" }, uniqueItems: true },
        additionalProperties: { $ref: "#/$defs/schema" },
        items: { $ref: "#/$defs/schema" },
        enum: { type: "array", minItems: 1 },
        const: true,
        anyOf: { type: "array", minItems: 1, items: { $ref: "#/$defs/schema" } },
        oneOf: { type: "array", minItems: 1, items: { $ref: "#/$defs/schema" } },
        allOf: { type: "array", minItems: 1, items: { $ref: "#/$defs/schema" } },
        minimum: { type: "number" },
        maximum: { type: "number" },
        exclusiveMinimum: { type: "number" },
        exclusiveMaximum: { type: "number" },
        minLength: nonNegative,
        maxLength: nonNegative,
        minItems: nonNegative,
        maxItems: nonNegative,
        uniqueItems: { type: "boolean" },
        // Patterns run on hostile input with a backtracking engine: keep them short.
        pattern: { type: "string", maxLength: 200 },
        format: { type: "string" },
        nullable: { type: "boolean" },
      },
    },
  },
};

const metaValidator = new Validator(META, "2020-12", false);
const cache = new Map<string, Validator>();

/** Problems with a schema an app declared, as "<pointer>: message"; empty when usable. */
export function schemaProblems(schema: unknown): string[] {
  let result: ReturnType<Validator["validate"]>;
  try {
    result = metaValidator.validate(schema);
  } catch {
    return ["schema is too deeply nested"]; // a recursion limit, reached by a hostile document
  }
  if (!result.valid) return messages(result.errors);
  try {
    validatorFor(schema as Schema).validate({}); // compiles patterns and $refs: a bad one throws here
  } catch (error) {
    return [`schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`];
  }
  return [];
}

/** Problems with a value against a schema, as "<pointer>: message"; empty when valid. */
export function valueProblems(schema: unknown, value: unknown): string[] {
  const result = validatorFor(schema as Schema).validate(value);
  return result.valid ? [] : messages(result.errors);
}

/**
 * Where `value` breaks `schema`, named by places in the schema alone: for a value from an untrusted
 * source, whose own property names must not reach a message. The validator's keywordLocation can
 * carry the value's keys (under additionalProperties), so it is named only when it is a path that
 * exists in the schema; otherwise only the keyword.
 */
export function schemaViolations(schema: unknown, value: unknown): string[] {
  const result = validatorFor(schema as Schema).validate(value);
  if (result.valid) return [];
  const place = (e: OutputUnit) =>
    inSchema(schema, e.keywordLocation)
      ? e.keywordLocation.slice(0, 200)
      : `a value its "${e.keyword}" refuses`;
  return [...new Set(leaves(result.errors).map(place))].slice(0, 20);
}

/** Whether a `#/a/b` location names keys that are all in `schema` (a keyword last may be a boolean). */
function inSchema(schema: unknown, location: string): boolean {
  let node: unknown = schema;
  for (const raw of location.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return false;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

function validatorFor(schema: Schema): Validator {
  const key = JSON.stringify(schema);
  let validator = cache.get(key);
  if (!validator) {
    validator = new Validator(schema, "2020-12", false);
    if (cache.size > 500) cache.clear(); // bounded: schemas come from a tenant's handful of apps
    cache.set(key, validator);
  }
  return validator;
}

/** The leaf errors say what is wrong; the wrappers ("does not match $ref") only repeat it. */
function leaves(errors: OutputUnit[]): OutputUnit[] {
  const found = errors.filter(
    (e) => !/^(\$ref|properties|additionalProperties|items|anyOf|allOf)$/.test(e.keyword),
  );
  return found.length ? found : errors;
}

function messages(errors: OutputUnit[]): string[] {
  return [...new Set(leaves(errors).map((e) => `${e.instanceLocation || "#"}: ${e.error}`))].slice(0, 20);
}
