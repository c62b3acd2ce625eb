import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, expectError, issueKey } from "./helpers.ts";
import {
  answer,
  ask,
  display,
  hubWorld,
  lit,
  nextConsent,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/** Real MCP servers from npm, started on loopback by test/fixtures/mcp-servers.ts. */
const urls = env as unknown as { TEST_MCP_EVERYTHING_URL: string; TEST_MCP_MEMORY_URL: string };

interface Fn {
  name: string;
  irreversible: boolean;
  output: { confidentiality: string; integrity?: string };
  tool?: { name: string; idempotent: boolean; structured: boolean };
  response: Record<string, unknown>;
}
interface AppBody {
  id: string;
  app: { versions: Array<{ manifest: { functionalities: Fn[]; mcp: { definitions: unknown[] } } }> };
}

async function registerMcp(
  w: Awaited<ReturnType<typeof hubWorld>>,
  name: string,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: unknown }> {
  const dev = (await issueKey(w.tenant, "developer")).secret;
  return api("POST", "/v1/apps", {
    key: dev,
    body: { name, description: `${name} over MCP`, version: "1.0.0", mcp: { url, ...extra } },
  });
}

async function approve(w: Awaited<ReturnType<typeof hubWorld>>, appId: string, version = 1) {
  const res = await api("POST", `/v1/admin/apps/${appId}/versions/${version}/approve`, {
    key: w.tenant.adminKey,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe("MCP servers as apps", () => {
  it("imports server-everything's tools (2025-11-25) with the annotation mapping", async () => {
    const w = await hubWorld([]);
    const res = await registerMcp(w, "everything", urls.TEST_MCP_EVERYTHING_URL);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [version] = (res.body as AppBody).app.versions;
    const fns = new Map(version!.manifest.functionalities.map((f) => [f.name, f]));
    expect(version!.manifest.mcp.definitions.length).toBeGreaterThanOrEqual(fns.size);
    // readOnlyHint: true → reversible; anything else → irreversible.
    expect(fns.get("echo")).toMatchObject({
      irreversible: false,
      tool: { name: "echo", idempotent: true, structured: false },
    });
    expect(fns.get("toggle-simulated-logging")?.irreversible).toBe(true);
    // A tool without an output schema answers {text}, untrusted whatever its annotations say.
    expect(fns.get("echo")?.response).toMatchObject({ properties: { text: { type: "string" } } });
    expect(fns.get("echo")?.output.integrity).toBeUndefined();
    expect(fns.get("get-structured-content")?.tool?.structured).toBe(true);
  });

  it("runs a query through the hub that calls server-everything's tools", async () => {
    const w = await hubWorld([]);
    const res = await registerMcp(w, "everything", urls.TEST_MCP_EVERYTHING_URL);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await approve(w, (res.body as AppBody).id);
    const sid = await openSession(w);
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("echoed", "everything.echo", { message: lit("hello from lattice") }),
            tool("weather", "everything.get-structured-content", { location: lit("New York") }),
            display(ref("echoed", "text"), "echo"),
            display(ref("weather"), "weather"),
          ],
        },
      },
    ]);
    const q = await settle(w, sid, await ask(w, sid, "echo and weather"));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(q.display[0]?.value).toContain("hello from lattice");
    expect(q.display[0]?.untrusted).toBe(true);
    expect(q.display[1]?.value).toMatchObject({ temperature: expect.any(Number) });
  });

  it("calls server-memory behind mcp-proxy (2026-07-28); its irreversible tools ask first", async () => {
    const w = await hubWorld([]);
    const res = await registerMcp(w, "memory", urls.TEST_MCP_MEMORY_URL);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const fns = new Map(
      (res.body as AppBody).app.versions[0]!.manifest.functionalities.map((f) => [f.name, f]),
    );
    expect(fns.get("delete_entities")?.irreversible).toBe(true); // destructiveHint
    expect(fns.get("create_entities")?.irreversible).toBe(true); // not readOnly
    expect(fns.get("read_graph")?.irreversible).toBe(false);
    await approve(w, (res.body as AppBody).id);
    const sid = await openSession(w);
    const entity = `lattice-${Date.now().toString(36)}`;
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("made", "memory.create_entities", {
              entities: lit([{ name: entity, entityType: "test", observations: ["made through lattice"] }]),
            }),
            tool("found", "memory.search_nodes", { query: lit(entity) }),
            display(ref("found"), "found"),
          ],
        },
      },
    ]);
    // Arguments of an irreversible call must be the user's own words (literals found in the query).
    const qid = await ask(
      w,
      sid,
      `create entities: name ${entity}, entityType test, observations made through lattice`,
    );
    const first = await settle(w, sid, qid);
    expect(first.status, JSON.stringify([first.error, first.trace])).toBe("awaiting_consent");
    const consent = await nextConsent(w, sid);
    expect(consent.functionality).toContain("create_entities");
    expect((await answer(w, sid, consent.id, { decision: "allow" })).status).toBe(200);
    const q = await settle(w, sid, qid);
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(JSON.stringify(q.display[0]?.value)).toContain(entity);
  });

  it("refuses a server it cannot list, and one outside the egress guard, in the API's error shape", async () => {
    const w = await hubWorld([]);
    const down = await registerMcp(w, "down", "http://127.0.0.1:9/mcp");
    const error = expectError(down, 400);
    expect(JSON.stringify(error.details)).toContain("body.mcp.url");
    const inside = await registerMcp(w, "inside", "https://10.0.0.7/mcp");
    expect(JSON.stringify(expectError(inside, 400).details)).toContain("private");
  });
});
