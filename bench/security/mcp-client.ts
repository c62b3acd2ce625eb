/**
 * The baseline's MCP client (bench only): the real client SDK from Node, as a vanilla assistant uses
 * an MCP server: list the tools when it starts, offer them to the model as they are, call them, and
 * hand the model what they answer. No pins, no labels.
 */
import { Client, StreamableHTTPClientTransport, type Tool } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";

export interface McpTools {
  tools: Tool[];
  /** The tool's answer as the model reads it: structured content as JSON, else its text. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function connectTools(url: string, token: string): Promise<McpTools> {
  const client = new Client(
    { name: "lattice-bench-baseline", version: "1" },
    { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return {
    tools,
    async call(name, args) {
      let result: Awaited<ReturnType<typeof client.callTool>>;
      try {
        result = await client.callTool({ name, arguments: args });
      } catch (e) {
        return JSON.stringify({
          error: { code: "mcp_error", message: e instanceof Error ? e.message : String(e) },
        });
      }
      const text = ((result.content ?? []) as Array<{ type: string; text?: string }>)
        .map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type}]`))
        .join("\n");
      if (result.isError) return JSON.stringify({ error: { code: "tool_error", message: text } });
      return result.structuredContent ? JSON.stringify(result.structuredContent) : text;
    },
    close: () => client.close(),
  };
}
