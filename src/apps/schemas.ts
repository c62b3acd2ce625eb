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

function messages(errors: OutputUnit[]): string[] {
  // The leaf errors say what is wrong; the wrappers ("does not match $ref") only repeat it.
  const leaves = errors.filter(
    (e) => !/^(\$ref|properties|additionalProperties|items|anyOf|allOf)$/.test(e.keyword),
  );
  const chosen = leaves.length ? leaves : errors;
  return [...new Set(chosen.map((e) => `${e.instanceLocation || "#"}: ${e.error}`))].slice(0, 20);
}
