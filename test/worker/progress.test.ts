import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, issueKey } from "./helpers.ts";
import { display, type HubWorld, hubWorld, lit, openSession, ref, script, tool } from "./hub-kit.ts";

/**
 * Progress while a query runs: an MCP server's `notifications/progress` become `step_progress`
 * events, and every stream (the session's events, the OpenAI-compatible one, the AI SDK's) shows
 * each step's progress before its final answer.
 */
const urls = env as unknown as { TEST_MCP_EVERYTHING_URL: string };

async function withEverything(): Promise<HubWorld> {
  const w = await hubWorld([]);
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
    expect(progress.map((e) => [e.data.progress, e.data.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(progress[0]!.data).toMatchObject({ key: "steps[0]", kind: "tool", app: "everything" });
    const started = types.indexOf("step_started");
    const finished = types.indexOf("step_finished");
    expect(started).toBeLessThan(types.indexOf("step_progress"));
    expect(types.lastIndexOf("step_progress")).toBeLessThan(finished);
  });
});
