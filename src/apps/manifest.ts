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

/**
 * Request paths where data, messages or money go (see policy/destinations.ts); absent: not declared.
 * They add to the destinations Lattice infers (policy/inferred-destinations.ts), never remove one.
 */
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
    /** Set by the MCP import, never by a developer: this functionality is the named tool of `mcp`. */
    tool: z
      .object({
        name: z.string().min(1).max(128),
        /** The server's `idempotentHint`: a call that timed out may be sent again. */
        idempotent: z.boolean(),
        /** Answers are `structuredContent` (checked against `response`), else `{text}`. */
        structured: z.boolean(),
      })
      .strict()
      .optional(),
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

/** A secret a developer sends once: sealed by the tenant, never stored in the manifest or returned. */
const WriteOnly = z.string().min(1).max(4096).optional();

/**
 * Where the OAuth endpoints of a version came from, filled by Lattice at registration and never
 * accepted from a developer: the admin approves these concrete URLs, and serving never rediscovers.
 */
export const OAuthDiscovery = z
  .object({
    /** The RFC 9728 document that named the authorization server (its `resource` is the server URL). */
    resourceMetadataUrl: z.url().max(2048),
    /** The authorization server (its RFC 8414 `issuer`). */
    authorizationServer: z.url().max(2048),
    /** Where Lattice registered its client (RFC 7591), with its callback URL. */
    registrationEndpoint: z.url().max(2048),
    /** The callback URL the client was registered with. */
    redirectUri: z.url().max(2048),
    /**
     * RFC 7591 `client_secret_expires_at` (seconds since the epoch) when the server gave one other
     * than 0 (never): a later version registers a new client rather than keep one about to expire.
     */
    clientSecretExpiresAt: z.int().min(1).max(253_402_300_799).optional(),
    /**
     * How the client authenticates at the token endpoint, as registered (RFC 7591): a later version
     * keeps a confidential client only while its sealed secret is still found.
     */
    tokenEndpointAuthMethod: z.enum(["none", "client_secret_basic", "client_secret_post"]).optional(),
  })
  .strict()
  .openapi("OAuthDiscovery");
export type OAuthDiscovery = z.infer<typeof OAuthDiscovery>;

/** How Lattice authenticates to an MCP server. Secrets are write-only (see `WriteOnly`). */
export const McpAuth = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("none") }).strict(),
    z.object({ type: z.literal("bearer"), token: WriteOnly }).strict(),
    z
      .object({
        type: z.literal("client_credentials"),
        tokenUrl: z.url({ protocol: /^https?$/ }).max(2048),
        clientId: z.string().min(1).max(256),
        clientSecret: WriteOnly,
        scope: z.string().max(1000).optional(),
      })
      .strict(),
    z
      .object({
        /**
         * Per-user OAuth 2.1 (code + PKCE): each user authorizes the app once, through a consent.
         * The endpoints and client id are given all together, or none of them: then Lattice
         * discovers them at registration (RFC 9728, RFC 8414) and registers a client (RFC 7591).
         */
        type: z.literal("oauth"),
        authorizationUrl: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
        tokenUrl: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
        /** RFC 7009: where a user's tokens are revoked when they revoke the app. */
        revocationUrl: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
        /** The authorization server's issuer (checked against the callback's `iss`); default: the token URL's origin. */
        issuer: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
        clientId: z.string().min(1).max(256).optional(),
        clientSecret: WriteOnly,
        scope: z.string().max(1000).optional(),
        discovered: OAuthDiscovery.optional(),
      })
      .strict(),
    z
      .object({
        /**
         * A personal access token per user: each user pastes their own (sealed in their spoke) and
         * Lattice sends it as a Bearer token to this server's URL only.
         */
        type: z.literal("user_token"),
        /** The developer's own token, only to list the tools at registration: never stored. */
        token: WriteOnly,
      })
      .strict(),
  ])
  .openapi("McpAuth");
export type McpAuth = z.infer<typeof McpAuth>;
type OAuthBlock = Extract<McpAuth, { type: "oauth" }>;
/** A per-user OAuth block with its endpoints and client, as every stored version has it. */
export type ResolvedOAuth = OAuthBlock &
  Required<Pick<OAuthBlock, "authorizationUrl" | "tokenUrl" | "clientId">>;
/** The endpoints are known (given by the developer, or discovered at registration). */
export const isResolvedOAuth = (auth: McpAuth): auth is ResolvedOAuth =>
  auth.type === "oauth" &&
  auth.authorizationUrl !== undefined &&
  auth.tokenUrl !== undefined &&
  auth.clientId !== undefined;

/** What the developer declares about one imported tool (the server's own text is never trusted for this). */
const McpToolSettings = z
  .object({
    output: OutputLabel.optional(),
    category: Functionality.shape.category,
    destinations: Destinations,
  })
  .strict();

/** One tool definition as the server listed it, kept per version: what its pin is the digest of. */
export const McpToolDefinition = z
  .object({
    name: z.string().min(1).max(128),
    title: z.string().max(4000).optional(),
    description: z.string().max(20_000).optional(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi("McpToolDefinition");
export type McpToolDefinition = z.infer<typeof McpToolDefinition>;

export const McpServer = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    auth: McpAuth.default({ type: "none" }),
    tools: z.record(z.string(), McpToolSettings).optional().openapi({
      description: "Per tool name: the output label, category and destinations you declare",
    }),
    /** Tools not to import (still pinned: a change to them is a change to the server). */
    exclude: z.array(z.string().min(1).max(128)).max(256).optional(),
    /** Filled by the import at registration, never accepted from a developer. */
    definitions: z.array(McpToolDefinition).max(256).optional(),
  })
  .strict()
  .openapi("McpServer");
export type McpServer = z.infer<typeof McpServer>;

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
    /** The signed-HTTP endpoint of `functionalities`; an MCP-only app has none. */
    endpoint: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    /** The app's HTTP functionalities, and (after import) one per tool of `mcp`. */
    functionalities: z.array(Functionality).max(64).default([]),
    mcp: McpServer.optional(),
    agent: AgentBlock.optional(),
  })
  .strict()
  .refine((m) => m.endpoint !== undefined || m.mcp !== undefined, {
    message: "an app names an endpoint, an MCP server (mcp), or both",
  })
  .openapi("Manifest");

export type Manifest = z.infer<typeof Manifest>;
export type ManifestInput = z.input<typeof Manifest>;
export type Functionality = z.infer<typeof Functionality>;
export type FunctionalityInput = z.input<typeof Functionality>;
/** A manifest with signed-HTTP functionalities (every demo app but the MCP ones). */
export type HttpManifestInput = ManifestInput & { endpoint: string; functionalities: FunctionalityInput[] };
