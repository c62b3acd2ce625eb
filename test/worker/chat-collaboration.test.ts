/**
 * A spoke's collaboration request asks the user while its step runs: a chat turn must stop for it
 * too, and say `awaiting_consent` as the query view does, in every chat adapter.
 */
import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { DANA } from "../../examples/apps/src/apps/inboxpilot.ts";
import worker from "../../src/worker/index.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  hubWorld,
  lit,
  mirrorCatalog,
  openSession,
  RIDE_TO_LOWERED,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
const QUERY = `Get a ride quote from Home to Airport and mail it to Dana (${DANA})`;

async function world() {
  const rideQuote = {
    ...mirrorCatalog(["swiftride"]).find((e) => e.name === "swiftride.quote")!,
    name: "ride.quote",
  };
  const w = await hubWorld(
    ["inboxpilot", "swiftride", "cheapcab"],
    { selfCorrection: 1, planning: { mode: "apps" }, tools: RIDE_TO_LOWERED },
    { swiftride: "confidential", cheapcab: "confidential" },
    {
      catalog: [...mirrorCatalog(["inboxpilot"]), rideQuote],
      bindings: { swiftride: { quote: "ride.quote" }, cheapcab: { quote: "ride.quote" } },
    },
  );
  const step = tool("done", "inboxpilot.send_update", { task: lit(QUERY) });
  await script(w.models.planner, [{ respond: { steps: [step, display(ref("done"))] } }]);
  await script(w.models.spoke, [
    { when: '"sent"', respond: { status: "mailed the quote" } },
    { when: '"answer"', ...call("send_mail", { to: DANA, subject: "Ride", body: "Quote attached" }) },
    {
      when: '"fxId"',
      ...call("lattice_request", { fxId: "{{fxId}}", request: { from: "Home", to: "Airport" } }),
    },
    { when: "send_update", ...call("lattice_find", { functionality: "ride.quote" }) },
  ]);
  return w;
}

type Lattice = { queryId: string; status: string; consents?: Array<{ id: string; kind: string }> };

const lattice = (input: RequestInfo | URL, init?: RequestInit) =>
  worker.fetch(new Request(input, init), env as never);

/** The query as `GET …/queries/{qid}` shows it. */
async function queryStatus(w: { frontend: string }, sid: string, qid: string): Promise<string> {
  const res = await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend });
  return (res.body as { status: string }).status;
}

/** One turn of the AI SDK endpoint, read as raw frames: its text and the finish chunk's `lattice`. */
async function aiSdkTurn(w: { frontend: string }, sid: string, text: string) {
  const res = await lattice("http://lattice.test/v1/ai-sdk/chat", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${w.frontend}`,
      "content-type": "application/json",
      "X-Lattice-Session": sid,
    },
    body: JSON.stringify({
      id: "chat-collab",
      user: "alice",
      messages: [{ id: `u-${text.length}`, role: "user", parts: [{ type: "text", text }] }],
    }),
  });
  const chunks = (await res.text())
    .split("\n\n")
    .filter((f) => f.startsWith("data: {"))
    .map((f) => JSON.parse(f.slice("data: ".length)) as Record<string, unknown>);
  const finish = chunks.find((c) => c.type === "finish") as { messageMetadata: { lattice: Lattice } };
  const words = chunks.flatMap((c) => (c.type === "text-delta" ? [String(c.delta)] : [])).join("\n");
  return { text: words, lattice: finish.messageMetadata.lattice };
}

describe("chat turns and a spoke's collaboration request", () => {
  it("the OpenAI endpoint ends the turn on the collaboration consent asked while the query runs", async () => {
    const w = await world();
    const sid = await openSession(w);
    const oai = new OpenAI({
      apiKey: w.frontend,
      baseURL: "http://lattice.test/v1/openai",
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) =>
        worker.fetch(new Request(url, init), env as never),
    });
    const turn = async (text: string) => {
      const c = await oai.chat.completions.create(
        { model: "lattice", user: "alice", messages: [{ role: "user", content: text }] },
        { headers: { "X-Lattice-Session": sid } },
      );
      return {
        text: c.choices[0]?.message.content ?? "",
        lattice: (c as unknown as { lattice: Lattice }).lattice,
      };
    };
    const streamed = async (text: string) => {
      const stream = await oai.chat.completions.create(
        { model: "lattice", user: "alice", messages: [{ role: "user", content: text }], stream: true },
        { headers: { "X-Lattice-Session": sid } },
      );
      let words = "";
      let field: Lattice | undefined;
      for await (const chunk of stream) {
        words += chunk.choices[0]?.delta.content ?? "";
        field = (chunk as unknown as { lattice?: Lattice }).lattice ?? field;
      }
      return { text: words, lattice: field! };
    };
    const first = await turn(QUERY);
    const irreversible = first.lattice.consents![0]!;
    expect(irreversible.kind).toBe("irreversible");
    await answer(w, sid, irreversible.id, { decision: "allow" });

    // The query runs on and InboxPilot's agent asks for another app: the turn stops there, and says
    // the query waits for the user, as the query view does (its step is still in flight).
    const second = await turn("done");
    expect(second.lattice).toMatchObject({ queryId: first.lattice.queryId, status: "awaiting_consent" });
    const collaboration = second.lattice.consents![0]!;
    expect(collaboration.kind).toBe("collaboration");
    expect(second.text).toContain(`/console/sessions/${sid}/consents/${collaboration.id}`);
    expect(await queryStatus(w, sid, first.lattice.queryId)).toBe("awaiting_consent");

    // A streamed turn meanwhile reports the same wait, with the same status on its last chunk.
    const waiting = await streamed("still there?");
    expect(waiting.lattice).toMatchObject({ queryId: first.lattice.queryId, status: "awaiting_consent" });
    expect(waiting.text).toMatch(/still waits for your answer/);

    await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
    const third = await turn("done");
    expect(third.lattice).toMatchObject({ earlier: { queryId: first.lattice.queryId, status: "completed" } });
    expect(third.text).toMatch(/✓ Done: /);
    expect(await queryStatus(w, sid, first.lattice.queryId)).toBe("completed");
  });

  it("the AI SDK endpoint ends the turn on it with awaiting_consent, as the query view says", async () => {
    const w = await world();
    const sid = await openSession(w);
    const first = await aiSdkTurn(w, sid, QUERY);
    expect(first.lattice.status).toBe("awaiting_consent");
    const irreversible = first.lattice.consents![0]!;
    expect(irreversible.kind).toBe("irreversible");
    await answer(w, sid, irreversible.id, { decision: "allow" });

    const second = await aiSdkTurn(w, sid, "done");
    expect(second.lattice).toMatchObject({ queryId: first.lattice.queryId, status: "awaiting_consent" });
    const collaboration = second.lattice.consents![0]!;
    expect(collaboration.kind).toBe("collaboration");
    expect(await queryStatus(w, sid, first.lattice.queryId)).toBe("awaiting_consent");

    // Answered, the query is running again, then done.
    await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
    expect((await settle(w, sid, first.lattice.queryId)).status).toBe("completed");
  });
});
