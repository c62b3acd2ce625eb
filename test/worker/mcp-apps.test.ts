import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEMO_MCP_TOKEN, demoMcpManifests } from "../../examples/apps/src/manifests.ts";
import { APPS_BASE } from "./demo.ts";
import { api, expectError, issueKey } from "./helpers.ts";
import {
  answer,
  ask,
  display,
  hubWorld,
  lit,
  modelLog,
  nextConsent,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";
import { registerDemoMcp, shadyState } from "./mcp-kit.ts";

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

describe("MCP app credentials and limits", () => {
  it("keeps a bearer token write-only, reuses it for a new version at the same URL, never sends it elsewhere", async () => {
    const w = await hubWorld([]);
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const manifest = demoMcpManifests(APPS_BASE, w.world).find((m) => m.name === "notes")!;
    const res = await api("POST", "/v1/apps", { key: dev, body: manifest });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = (res.body as AppBody).id;
    const read = await api("GET", `/v1/apps/${id}`, { key: dev });
    expect(JSON.stringify([res.body, read.body])).not.toContain(DEMO_MCP_TOKEN);
    // A new version without the token: the stored one (for the same URL) lists the tools.
    const { auth: _auth, ...mcp } = manifest.mcp!;
    const v2 = await api("PUT", `/v1/apps/${id}`, {
      key: dev,
      body: { ...manifest, version: "1.1.0", mcp: { ...mcp, auth: { type: "bearer" } } },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    // Another URL (the other demo server) finds no token for it: the listing is refused (401).
    const moved = await api("PUT", `/v1/apps/${id}`, {
      key: dev,
      body: {
        ...manifest,
        mcp: { url: `${APPS_BASE}/w/${w.world}/mcp/shadynotes`, auth: { type: "bearer" } },
      },
    });
    expect(JSON.stringify(expectError(moved, 400).details)).toContain("body.mcp");
  });

  it("authenticates with OAuth client credentials at the manifest's token URL", async () => {
    const w = await hubWorld([]);
    const res = await registerMcp(w, "files", "http://127.0.0.1:8790/mcp", {
      auth: {
        type: "client_credentials",
        tokenUrl: "http://127.0.0.1:8790/token",
        clientId: "lattice-client",
        clientSecret: "lattice-client-secret",
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain("lattice-client-secret");
    await approve(w, (res.body as AppBody).id);
    await script(w.models.planner, [
      { respond: { steps: [tool("me", "files.whoami", {}), display(ref("me", "text"))] } },
    ]);
    const sid = await openSession(w);
    const q = await settle(w, sid, await ask(w, sid, "who is the files app talking to?"));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect(q.display[0]?.value).toBe("you are lattice-client");
  });

  it("never lets a server's sampling or elicitation request reach a model", async () => {
    const w = await hubWorld([]);
    await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [
      {
        respond: {
          steps: [tool("found", "shadynotes.find_notes", { query: lit("x") }), display(ref("found", "text"))],
        },
      },
    ]);
    const sid = await openSession(w);
    expect((await settle(w, sid, await ask(w, sid, "find notes"))).status).toBe("completed");
    const requests = (await shadyState(w.world)).serverRequests as Array<{ outcome: string }>;
    expect(requests.length).toBeGreaterThan(0); // the server tried
    expect(requests.every((r) => r.outcome === "skipped")).toBe(true); // Lattice declared no capability
    expect(await modelLog(w.models.spoke)).toEqual([]);
  });

  it("ends a call that outlasts the tenant's app timeout cleanly (app_timeout)", async () => {
    const w = await hubWorld([], { limits: { appTimeoutMs: 500 } });
    const res = await registerMcp(w, "everything", urls.TEST_MCP_EVERYTHING_URL);
    await approve(w, (res.body as AppBody).id);
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("slow", "everything.trigger-long-running-operation", { duration: lit(5), steps: lit(1) }),
            display(ref("slow", "text")),
          ],
        },
      },
    ]);
    const sid = await openSession(w);
    const q = await settle(w, sid, await ask(w, sid, "run the long operation"));
    // The tenant's 500 ms bound ended the 5 s tool call: a call the server finished would not fail.
    expect(q.status).toBe("failed");
    expect(q.error?.code).toBe("app_timeout");
  });
});
