/**
 * The OAuth fixture's protected resource (TEST DOUBLE): an MCP server over streamable HTTP that
 * serves only callers presenting an access token this fixture issued (unexpired, unrevoked). Its two
 * read-only tools answer per subject, so a test can tell whose token reached the server.
 */
import {
  createMcpHandler,
  fromJsonSchema,
  type JsonSchemaType,
  McpServer,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { RESOURCE, RESOURCE_METADATA_URL } from "./protocol.ts";
import type { AccessGrant, LogEntry, Refusal } from "./state.ts";

// Workers forbid the code generation ajv relies on; the cf-worker validator interprets schemas instead.
const validator = new CfWorkerJsonSchemaValidator();

// Raw JSON Schema (not zod), so tools/list shows exactly these keywords and nothing a converter adds.
const closedObject = (properties: Record<string, JsonSchemaType>): JsonSchemaType => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const noInput = fromJsonSchema<Record<string, never>>(closedObject({}), validator);
const filesOutput = fromJsonSchema<{ files: { name: string }[] }>(
  closedObject({
    files: {
      type: "array",
      description: "The subject's files",
      items: closedObject({ name: { type: "string", description: "The file's name" } }),
    },
  }),
  validator,
);

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export function fixtureMcpServer(subject: string): McpServer {
  const server = new McpServer(
    { name: "oauth-fixture", version: "1.0.0" },
    { jsonSchemaValidator: validator },
  );
  server.registerTool(
    "whoami",
    {
      title: "Who am I",
      description: "Names the subject the access token was issued for.",
      inputSchema: noInput,
      annotations: READ_ONLY,
    },
    async () => ({ content: [{ type: "text", text: `you are ${subject}` }] }),
  );
  server.registerTool(
    "list_files",
    {
      title: "List files",
      description: "Lists the subject's files.",
      inputSchema: noInput,
      outputSchema: filesOutput,
      annotations: READ_ONLY,
    },
    async () => {
      const files = [{ name: `${subject}-notes.txt` }, { name: `${subject}-plan.md` }];
      return { content: [{ type: "text", text: JSON.stringify({ files }) }], structuredContent: { files } };
    },
  );
  return server;
}

/** RFC 6750 §3 + RFC 9728 §5.1: the challenge points the client at the protected resource metadata. */
function unauthorized(refused: Refusal | "missing", metadataUrl: string): Response {
  const missing = refused === "missing";
  const challenge = `Bearer resource_metadata="${metadataUrl}"${missing ? "" : ', error="invalid_token"'}`;
  const body = missing
    ? { error: "unauthorized", error_description: "send Authorization: Bearer <access token>" }
    : { error: "invalid_token", error_description: `access token ${refused}` };
  return Response.json(body, { status: 401, headers: { "WWW-Authenticate": challenge } });
}

/** Notes the JSON-RPC method (and tool) a POST carries, refused or not, for the fixture log. */
async function noteRpc(request: Request, entry: LogEntry): Promise<void> {
  if (request.method !== "POST") return;
  try {
    const message = JSON.parse(await request.clone().text()) as {
      method?: unknown;
      params?: { name?: unknown };
    };
    if (typeof message.method === "string") entry.rpc = message.method;
    if (message.method === "tools/call" && typeof message.params?.name === "string")
      entry.tool = message.params.name;
  } catch {
    // Not JSON: the MCP handler answers that with its own parse error.
  }
}

export async function serveMcp(
  request: Request,
  verify: (token: string) => Promise<AccessGrant | { refused: Refusal }>,
  entry: LogEntry,
  /** Which URL serves: /mcp, or /mcp-b (its own resource, its own metadata). */
  served: { resource: string; metadataUrl: string } = {
    resource: RESOURCE,
    metadataUrl: RESOURCE_METADATA_URL,
  },
): Promise<Response> {
  await noteRpc(request, entry);
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("Authorization") ?? "")?.[1];
  if (!token) {
    entry.refused = "missing";
    return unauthorized("missing", served.metadataUrl);
  }
  const grant = await verify(token);
  if ("refused" in grant) {
    entry.refused = grant.refused;
    return unauthorized(grant.refused, served.metadataUrl);
  }
  entry.subject = grant.subject;
  entry.client_id = grant.clientId;
  // A fresh server per request (the SDK's stateless per-request handler), built for this subject.
  const handler = createMcpHandler(() => fixtureMcpServer(grant.subject), {
    onerror: (err) => console.warn(`oauth-fixture mcp: ${err.message}`),
  });
  const authInfo = {
    token,
    clientId: grant.clientId,
    scopes: grant.scope.split(" "),
    resource: new URL(served.resource),
  };
  return handler.fetch(request, { authInfo });
}
