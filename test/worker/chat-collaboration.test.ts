/** A spoke's collaboration request asks the user while its query runs: a chat turn must stop for it too. */
import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { DANA } from "../../examples/apps/src/apps/inboxpilot.ts";
import worker from "../../src/worker/index.ts";
import { answer, display, hubWorld, lit, mirrorCatalog, openSession, ref, script, tool } from "./hub-kit.ts";

const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
const QUERY = `Get a ride quote from Home to Airport and mail it to Dana (${DANA})`;

async function world() {
  const rideQuote = {
    ...mirrorCatalog(["swiftride"]).find((e) => e.name === "swiftride.quote")!,
    name: "ride.quote",
  };
  const w = await hubWorld(
    ["inboxpilot", "swiftride", "cheapcab"],
    { selfCorrection: 1, planning: { mode: "apps" } },
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
    const first = await turn(QUERY);
    const irreversible = first.lattice.consents![0]!;
    expect(irreversible.kind).toBe("irreversible");
    await answer(w, sid, irreversible.id, { decision: "allow" });

    // The query runs on and InboxPilot's agent asks for another app: the turn stops there (running).
    const second = await turn("done");
    expect(second.lattice).toMatchObject({ queryId: first.lattice.queryId, status: "running" });
    const collaboration = second.lattice.consents![0]!;
    expect(collaboration.kind).toBe("collaboration");
    expect(second.text).toContain(`/console/sessions/${sid}/consents/${collaboration.id}`);

    await answer(w, sid, collaboration.id, { decision: "allow", choice: "swiftride.quote" });
    const third = await turn("done");
    expect(third.lattice).toMatchObject({ queryId: first.lattice.queryId, status: "completed" });
    expect(third.text).toMatch(/went on after your answer/);
  });
});
