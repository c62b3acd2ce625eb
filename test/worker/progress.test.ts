import { env } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { DEMO_MCP_TOKEN, SHADY_PROGRESS_MARKER } from "../../examples/apps/src/manifests.ts";
import { demoApps } from "./demo.ts";
import { api, issueKey } from "./helpers.ts";
import { display, type HubWorld, hubWorld, lit, openSession, ref, script, tool } from "./hub-kit.ts";
import { registerDemoMcp } from "./mcp-kit.ts";

/**
 * Progress while a query runs: an MCP server's `notifications/progress` become `step_progress`
 * events, and every stream (the session's events, the OpenAI-compatible one, the AI SDK's) shows
 * each step's progress before its final answer.
 */
const urls = env as unknown as { TEST_MCP_EVERYTHING_URL: string };

async function withEverything(policy: Record<string, unknown> = {}): Promise<HubWorld> {
  const w = await hubWorld([], policy);
  const dev = (await issueKey(w.tenant, "developer")).secret;
  const res = await api("POST", "/v1/apps", {
    key: dev,
    body: {
      name: "everything",
      description: "everything over MCP",
      version: "1.0.0",
      mcp: { url: urls.TEST_MCP_EVERYTHING_URL },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as { id: string }).id;
  const ok = await api("POST", `/v1/admin/apps/${id}/versions/1/approve`, { key: w.tenant.adminKey });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  return w;
}

/** server-everything's long-running tool in two steps, its answer displayed. */
const longPlan = {
  steps: [
    tool("slow", "everything.trigger-long-running-operation", { duration: lit(0.2), steps: lit(2) }),
    display(ref("slow", "text"), "done"),
  ],
};

/** The SSE frames of a whole response: each `data:` line parsed (the closing [DONE] kept as a string). */
async function sseData(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((l) => l.startsWith("data: ")))
    .map((line) => line.slice(6))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

describe("progress", () => {
  it("streams server-everything's progress on the session's events before the step's answer", async () => {
    const w = await withEverything();
    await script(w.models.planner, [{ respond: longPlan }]);
    const sid = await openSession(w);
    const res = await api("POST", `/v1/sessions/${sid}/queries`, {
      key: w.frontend,
      body: { text: "run the long operation" },
      headers: { Accept: "text/event-stream" },
      stream: true,
    });
    expect(res.status).toBe(200);
    const events = (await sseData(res.response)) as Array<{ type: string; data: Record<string, unknown> }>;
    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe("query_finished");
    const progress = events.filter((e) => e.type === "step_progress");
    // Whole percents, not the server's own numbers (#43).
    expect(progress.map((e) => [e.data.progress, e.data.total])).toEqual([
      [50, 100],
      [100, 100],
    ]);
    expect(progress[0]!.data).toMatchObject({ key: "steps[0]", kind: "tool", app: "everything" });
    const started = types.indexOf("step_started");
    const finished = types.indexOf("step_finished");
    expect(started).toBeLessThan(types.indexOf("step_progress"));
    expect(types.lastIndexOf("step_progress")).toBeLessThan(finished);
  });

  it("shows no progress for a call whose answer is above the display cap (#43)", async () => {
    // The control is the test above: the same call under the default cap streams its progress.
    const w = await withEverything({ display: { maxConfidentiality: "public" } });
    await script(w.models.planner, [{ respond: longPlan }]);
    const sid = await openSession(w);
    const res = await api("POST", `/v1/sessions/${sid}/queries`, {
      key: w.frontend,
      body: { text: "run the long operation" },
      headers: { Accept: "text/event-stream" },
      stream: true,
    });
    expect(res.status).toBe(200);
    const events = (await sseData(res.response)) as Array<{ type: string; data: Record<string, unknown> }>;
    const types = events.map((e) => e.type);
    expect(types).toContain("step_finished");
    expect(types).toContain("display_redacted");
    expect(types).not.toContain("step_progress");
  });

  it("shows each step of a multi-step query as a reasoning line of the OpenAI stream, before the answer", async () => {
    const w = await hubWorld(["contacts"]);
    const plan = {
      steps: [
        tool("landlord", "contacts.lookup", { name: lit("landlord") }),
        tool("accountant", "contacts.lookup", { name: lit("accountant") }),
        display(ref("landlord"), "Landlord"),
        display(ref("accountant"), "Accountant"),
      ],
    };
    await script(w.models.planner, [{ respond: plan }, { respond: plan }]);
    const chunks = await openaiStream(w, "Who are my landlord and my accountant?");
    const lookup = "` contacts.lookup ` (app ` contacts `)";
    expect(reasoning(chunks)).toEqual([
      "▸ Planning the request…",
      "▸ Plan checked against the policy.",
      `▸ Calling ${lookup}…`,
      `✓ ${lookup} done.`,
      `▸ Calling ${lookup}…`,
      `✓ ${lookup} done.`,
    ]);
    expectProgressFirst(chunks);
    expect(contentOf(chunks)).toContain("Morgan Lee");

    // The AI SDK stream: a data part per step, each running then done, all before the answer's text.
    const ui = (await aiSdkStream(w, "Who are my landlord and my accountant?")) as Array<{
      type: string;
      id?: string;
      data?: { state: string };
    }>;
    const steps = ui.filter((c) => c.type === "data-lattice-step").map((c) => `${c.id} ${c.data?.state}`);
    expect(steps).toEqual(["steps[0] running", "steps[0] done", "steps[1] running", "steps[1] done"]);
    const types = ui.map((c) => c.type);
    expect(types.lastIndexOf("data-lattice-step")).toBeLessThan(types.indexOf("text-start"));
  });

  it("carries each line under reasoning too, or as Open WebUI status events when asked (X-Lattice-Progress)", async () => {
    const w = await hubWorld(["contacts"]);
    const plan = {
      steps: [tool("l", "contacts.lookup", { name: lit("landlord") }), display(ref("l"), "Landlord")],
    };
    await script(w.models.planner, [{ respond: plan }, { respond: plan }, { respond: plan }]);
    const plainChunks = await openaiStream(w, "Who is my landlord?");
    const both = plainChunks.flatMap((c) => c.choices.map((x) => x.delta as Record<string, unknown>));
    const withReasoning = both.filter((d) => d.reasoning_content !== undefined);
    expect(withReasoning.length).toBeGreaterThan(0);
    expect(withReasoning.every((d) => d.reasoning === d.reasoning_content)).toBe(true);

    const status = await openaiStream(w, "Who is my landlord?", { "X-Lattice-Progress": "status" });
    const events = status.flatMap((c) => {
      const e = (c as { event?: { type: string; data: { description: string; done: boolean } } }).event;
      return e ? [e] : [];
    });
    expect(events[0]).toEqual({
      type: "status",
      data: { description: "▸ Planning the request…", done: false },
    });
    expect(events.at(-1)?.data.done).toBe(true);
    // A status line is text, not Markdown: names in quotation marks, no code span's backticks.
    expect(events.map((e) => e.data.description)).toContain("▸ Calling “contacts.lookup” (app “contacts”)…");
    expect(events.filter((e) => e.data.description.includes("`"))).toEqual([]);
    // Control: the same progress under reasoning is Markdown, its names code spans.
    expect(withReasoning.some((d) => String(d.reasoning).includes("` contacts.lookup `"))).toBe(true);
    expect(events.filter((e) => e.data.done)).toHaveLength(1);
    expect(reasoning(status)).toEqual([]);
    expect(contentOf(status)).toContain("Morgan Lee");
    // Every status event before the answer's content.
    const order = status.map((c) =>
      (c as { event?: unknown }).event ? "status" : contentOf([c]) ? "content" : "other",
    );
    expect(order.lastIndexOf("status")).toBeLessThan(order.indexOf("content"));

    const bad = await api("POST", "/v1/openai/chat/completions", {
      key: w.frontend,
      headers: { "X-Lattice-Progress": "shout" },
      body: { model: "lattice", messages: [{ role: "user", content: "hi" }], user: "alice", stream: true },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { param: string } }).error.param).toBe("X-Lattice-Progress");
  });

  it("shows server-everything's progress in the OpenAI stream and as AI SDK data parts, before the answer", async () => {
    const w = await withEverything();
    await script(w.models.planner, [{ respond: longPlan }, { respond: longPlan }]);
    const slow = "` everything.trigger-long-running-operation ` (app ` everything `)";
    const chunks = await openaiStream(w, "run the long operation");
    expect(reasoning(chunks).slice(2)).toEqual([
      `▸ Calling ${slow}…`,
      `  ${slow}: 50%`,
      `  ${slow}: 100%`,
      `✓ ${slow} done.`,
    ]);
    expectProgressFirst(chunks);
    expect(contentOf(chunks)).toContain("Long running operation completed");

    const ui = (await aiSdkStream(w, "run the long operation")) as UIMessageChunk[];
    const steps = ui.filter((c) => c.type === "data-lattice-step") as Array<{ id: string; data: unknown }>;
    const step = {
      key: "steps[0]",
      kind: "tool",
      tool: "everything.trigger-long-running-operation",
      app: "everything",
    };
    expect(steps).toEqual([
      { type: "data-lattice-step", id: "steps[0]", data: { ...step, state: "running" } },
      {
        type: "data-lattice-step",
        id: "steps[0]",
        data: { ...step, state: "running", progress: 50, total: 100 },
      },
      {
        type: "data-lattice-step",
        id: "steps[0]",
        data: { ...step, state: "running", progress: 100, total: 100 },
      },
      { type: "data-lattice-step", id: "steps[0]", data: { ...step, state: "done" } },
    ]);
    const types = ui.map((c) => c.type);
    expect(types.lastIndexOf("data-lattice-step")).toBeLessThan(types.indexOf("text-start"));
    // The AI SDK's own reader keeps one part per step, updated in place to its last state.
    let message: UIMessage | undefined;
    const replay = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of ui) controller.enqueue(chunk);
        controller.close();
      },
    });
    for await (const m of readUIMessageStream({ stream: replay })) message = m;
    const kept = message!.parts.filter((p) => p.type === "data-lattice-step");
    expect(kept).toEqual([{ type: "data-lattice-step", id: "steps[0]", data: { ...step, state: "done" } }]);
  });

  it("never shows an MCP server's progress message: numbers reach the streams, its words nowhere", async () => {
    const w = await hubWorld([]);
    await registerDemoMcp(w, "shadynotes");
    const plan = {
      steps: [tool("found", "shadynotes.find_notes", { query: lit("door") }), display(ref("found", "text"))],
    };
    await script(w.models.planner, [{ respond: plan }, { respond: plan }]);

    // The control: asked for progress, the server does send its message (to any client that shows it).
    const client = new Client({ name: "progress-test", version: "1" }, { capabilities: {} });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://apps/w/${w.world}/mcp/shadynotes`), {
        fetch: (url, init) => demoApps().fetch(new Request(url, init)),
        requestInit: { headers: { Authorization: `Bearer ${DEMO_MCP_TOKEN}` } },
      }),
    );
    const messages: unknown[] = [];
    await client.callTool(
      { name: "find_notes", arguments: { query: "door" } },
      { onprogress: (p) => messages.push((p as { message?: unknown }).message) },
    );
    await client.close();
    expect(String(messages[0])).toContain(SHADY_PROGRESS_MARKER);

    const sid = await openSession(w);
    const res = await api("POST", `/v1/sessions/${sid}/queries`, {
      key: w.frontend,
      body: { text: "find my door notes" },
      headers: { Accept: "text/event-stream" },
      stream: true,
    });
    const events = await res.response.text();
    expect(events).toContain("event: step_progress"); // the report came through, as numbers
    expect(events).not.toContain(SHADY_PROGRESS_MARKER);
    const chunks = await openaiStream(w, "find my door notes");
    expect(reasoning(chunks)).toContain("  ` shadynotes.find_notes ` (app ` shadynotes `): 100%");
    expect(JSON.stringify(chunks)).not.toContain(SHADY_PROGRESS_MARKER);
  });

  it("lets the hub's stream go when the client leaves mid-turn: the session's stream places are all free", async () => {
    const w = await withEverything();
    const slow = {
      steps: [
        tool("slow", "everything.trigger-long-running-operation", { duration: lit(3), steps: lit(3) }),
        display(ref("slow", "text")),
      ],
    };
    await script(w.models.planner, [{ respond: slow }]);
    const res = await api("POST", "/v1/openai/chat/completions", {
      key: w.frontend,
      body: {
        model: "lattice",
        messages: [{ role: "user", content: "go slowly" }],
        user: "alice",
        stream: true,
      },
      stream: true,
    });
    const sid = res.response.headers.get("X-Lattice-Session")!;
    const reader = res.response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("Calling")) {
      const next = await reader.read();
      expect(next.done).toBe(false);
      seen += decoder.decode(next.value);
    }
    await reader.cancel(); // the client goes away while the step runs
    // Every place is free again (the turn held one): all four open, none answers 429.
    const opened: Response[] = [];
    for (let i = 0; i < 4; i++) {
      const events = await api("GET", `/v1/sessions/${sid}/events`, { key: w.frontend, stream: true });
      expect(events.status, JSON.stringify(events.body)).toBe(200);
      opened.push(events.response);
    }
    await Promise.all(opened.map((r) => r.body!.cancel()));
  });
});

type Chunk = { choices: Array<{ delta: { content?: string; reasoning_content?: string } }> };

async function openaiStream(
  w: HubWorld,
  text: string,
  headers: Record<string, string> = {},
): Promise<Chunk[]> {
  const res = await api("POST", "/v1/openai/chat/completions", {
    key: w.frontend,
    headers,
    body: { model: "lattice", messages: [{ role: "user", content: text }], user: "alice", stream: true },
    stream: true,
  });
  expect(res.status).toBe(200);
  const data = await sseData(res.response);
  expect(data.at(-1)).toBe("[DONE]");
  return data.slice(0, -1) as Chunk[];
}

async function aiSdkStream(w: HubWorld, text: string): Promise<unknown[]> {
  const res = await api("POST", "/v1/ai-sdk/chat", {
    key: w.frontend,
    body: {
      id: `chat-${crypto.randomUUID()}`,
      user: "alice",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
    },
    stream: true,
  });
  expect(res.status).toBe(200);
  return (await sseData(res.response)).slice(0, -1);
}

/** The reasoning lines, each as one delta carries it. */
const reasoning = (chunks: Chunk[]) =>
  chunks.flatMap((c) =>
    (c.choices ?? []).flatMap((x) =>
      x.delta.reasoning_content ? [x.delta.reasoning_content.trimEnd()] : [],
    ),
  );
const contentOf = (chunks: Chunk[]) =>
  chunks.flatMap((c) => (c.choices ?? []).map((x) => x.delta.content ?? "")).join("");

/** Every reasoning chunk comes before the first chunk with content. */
function expectProgressFirst(chunks: Chunk[]): void {
  const kinds = chunks.flatMap((c) =>
    c.choices.map((x) => (x.delta.reasoning_content ? "progress" : x.delta.content ? "content" : "other")),
  );
  expect(kinds.lastIndexOf("progress")).toBeGreaterThan(-1);
  expect(kinds.lastIndexOf("progress")).toBeLessThan(kinds.indexOf("content"));
  expect(kinds.filter((k) => k === "content")).toHaveLength(1);
}
