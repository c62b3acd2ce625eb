/**
 * `mcpmisbehave`: a TEST FIXTURE, not a real app: an MCP server whose two tools answer whatever a test
 * put in its state (PUT /w/{world}/_demo/mcp/mcpmisbehave/state), as it is. `scripted` declares an
 * output schema ({note: string}, closed) and does not hold itself to it, as a hostile server would;
 * `scripted_text` declares none. The MCP counterpart of misbehave.scripted.
 */
import {
  fromJsonSchema,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
  McpServer,
} from "@modelcontextprotocol/server";
import { object, schema, string, validator } from "./schemas.ts";
import type { JsonState } from "./state.ts";

/** `result`: the tools/call result both tools answer (content, structuredContent, isError, …), after `delayMs`. */
export interface MisbehaveMcpState {
  result?: unknown;
  delayMs?: number;
}

export const seedMisbehaveMcp = (): MisbehaveMcpState => ({});

/** Accepts anything: the server answers what it was told, whatever its listed schema says. */
const lax: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

const noInput = schema<Record<string, never>>(object({}));
const noteOutput = fromJsonSchema<{ note: string }>(object({ note: string("A note") }), lax);
const readOnly = { readOnlyHint: true, openWorldHint: false, idempotentHint: true };
const fallback = { content: [{ type: "text", text: "nothing scripted" }], structuredContent: { note: "" } };

export function misbehaveMcpServer(state: JsonState<MisbehaveMcpState>): McpServer {
  const server = new McpServer(
    { name: "mcpmisbehave", version: "1.0.0" },
    { jsonSchemaValidator: validator },
  );
  // The SDK types a tool's answer; a scripted one is whatever the test wrote, unchecked on purpose.
  const answer = async () => {
    const { result, delayMs } = await state.read();
    if (delayMs) await new Promise((done) => setTimeout(done, delayMs));
    return (result ?? fallback) as { content: [] };
  };
  server.registerTool(
    "scripted",
    {
      title: "Scripted (structured)",
      description: "Answers the result a test scripted, under an output schema it need not match.",
      inputSchema: noInput,
      outputSchema: noteOutput,
      annotations: readOnly,
    },
    answer,
  );
  server.registerTool(
    "scripted_text",
    {
      title: "Scripted (text)",
      description: "Answers the result a test scripted, with no output schema.",
      inputSchema: noInput,
      annotations: readOnly,
    },
    answer,
  );
  return server;
}
