import { z } from "@hono/zod-openapi";

/**
 * The app manifest a developer submits (DESIGN.md "Apps"). Pure data: checked here for shape;
 * JSON Schemas inside it are compiled by `checkManifest` (schemas.ts) and endpoints by the egress guard.
 */
const slug = (what: string, max: number) =>
  z
    .string()
    .regex(
      new RegExp(`^[a-z][a-z0-9_-]{0,${max - 1}}$`),
      `${what}: lowercase letters, digits, - and _, from a letter`,
    );

/** A JSON Schema document: an object whose root is `type: "object"` (requests and responses are objects). */
export const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === "object", { message: 'must be a JSON Schema with "type": "object" at its root' })
  .openapi({ type: "object", description: 'A JSON Schema with "type": "object" at its root' });

export const OutputLabel = z
  .object({
    confidentiality: z.string().min(1).max(64),
    integrity: z.string().min(1).max(64).optional(),
  })
  .strict()
  .openapi("OutputLabel", {
    description: "Declared label of a functionality's output (integrity defaults to untrusted)",
  });

/** Request paths where data, messages or money go (see policy/destinations.ts); absent: not declared. */
const Destinations = z
  .array(z.string().min(1).max(200))
  .max(32)
  .optional()
  .openapi({ description: "Request paths where data, messages or money go, e.g. to, message.cc[]" });

export const Functionality = z
  .object({
    name: slug("functionality name", 64),
    description: z.string().min(1).max(4000),
    request: JsonSchemaObject,
    response: JsonSchemaObject,
    irreversible: z.boolean().default(false),
    output: OutputLabel.default({ confidentiality: "internal" }),
    category: z
      .string()
      .regex(/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/, "category looks like ride.book")
      .optional(),
    destinations: Destinations,
  })
  .strict()
  .openapi("Functionality");

export const AgentTool = z
  .object({
    name: slug("tool name", 64),
    description: z.string().min(1).max(4000),
    parameters: JsonSchemaObject,
    irreversible: z.boolean().default(false),
    /** Undeclared on an irreversible tool: every string and number it takes is a destination. */
    destinations: Destinations,
  })
  .strict();

export const AgentBlock = z
  .object({
    instructions: z.string().min(1).max(20_000),
    tools: z.array(AgentTool).max(64),
    /**
     * Which internal tools each functionality may use (the visor's S check); `lattice_request`
     * lets it ask other apps through the hub.
     */
    functionalities: z.record(z.string(), z.array(z.string()).max(64)),
    mcp: z.url().optional(),
  })
  .strict()
  .openapi("AgentBlock");

/** Names the hub itself uses for origins and ids: no app may take them. */
const RESERVED_APP_NAMES = /^(artifacts|vault|category|lattice.*)$/;

export const Manifest = z
  .object({
    name: slug("app name", 40).refine((n) => !RESERVED_APP_NAMES.test(n), {
      message: "this name is reserved (artifacts, vault, category, lattice…)",
    }),
    description: z.string().min(1).max(4000),
    version: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: "The developer's own version label, e.g. 1.2.0" }),
    endpoint: z.url({ protocol: /^https?$/ }).max(2048),
    functionalities: z.array(Functionality).min(1).max(64),
    agent: AgentBlock.optional(),
  })
  .strict()
  .openapi("Manifest");

export type Manifest = z.infer<typeof Manifest>;
export type ManifestInput = z.input<typeof Manifest>;
export type Functionality = z.infer<typeof Functionality>;
