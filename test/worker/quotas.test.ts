/** Daily tenant quotas, counted exactly: each with its control (the same run under the default quota). */
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers.ts";
import { display, hubWorld, lit, openSession, ref, script, settle, startWith, tool } from "./hub-kit.ts";

const ask = (w: { frontend: string }, sid: string) =>
  api("POST", `/v1/sessions/${sid}/queries`, { key: w.frontend, body: { text: "Look up my landlord" } });

describe("tenant quotas", () => {
  it("refuses the query past queriesPerDay with 429 quota_exceeded, naming the quota", async () => {
    const w = await hubWorld(["contacts"], { quotas: { queriesPerDay: 2 } });
    const sid = await openSession(w);
    expect((await ask(w, sid)).status).toBe(202);
    expect((await ask(w, sid)).status).toBe(202);
    const third = await ask(w, sid);
    expectError(third, 429, "quota_exceeded");
    expect(third.body).toMatchObject({ error: { details: { quota: "queries", limit: 2 } } });
    expect(Number(third.response.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("control: under the default quota the third query is accepted", async () => {
    const w = await hubWorld(["contacts"]);
    const sid = await openSession(w);
    for (let i = 0; i < 3; i++) expect((await ask(w, sid)).status).toBe(202);
  });

  it("ends a query whose second app call is past appCallsPerDay, cleanly", async () => {
    const plan = {
      steps: [
        tool("a", "contacts.lookup", { name: lit("landlord") }),
        tool("b", "contacts.lookup", { name: lit("accountant") }),
        display(ref("b")),
      ],
    };
    const run = async (quotas: Record<string, number>) => {
      const w = await hubWorld(["contacts"], { quotas });
      await script(w.models.planner, [{ respond: plan }]);
      const sid = await openSession(w);
      return settle(w, sid, await startWith(w, sid, "Look up my landlord and my accountant", {}));
    };
    expect(await run({ appCallsPerDay: 1 })).toMatchObject({
      status: "failed",
      error: { code: "quota_exceeded" },
    });
    const control = await run({});
    expect(control.status, JSON.stringify(control.error)).toBe("completed");
  });

  it("stops planning when no model tokens are left today", async () => {
    const w = await hubWorld(["contacts"], { quotas: { modelTokensPerDay: 0 } });
    const sid = await openSession(w);
    const q = await settle(w, sid, await startWith(w, sid, "Look up my landlord", {}));
    expect(q).toMatchObject({ status: "failed", error: { code: "quota_exceeded" } });
  });
});

describe("open event streams", () => {
  it("are bounded per session: the fifth answers 429, and a closed one frees its place", async () => {
    const w = await hubWorld(["contacts"]);
    const sid = await openSession(w);
    const open = () => api("GET", `/v1/sessions/${sid}/events`, { key: w.frontend, stream: true });
    const streams = [];
    for (let i = 0; i < 4; i++) {
      const res = await open();
      expect(res.status).toBe(200);
      streams.push(res);
    }
    expectError(await open(), 429, "too_many_streams");
    await streams[0]!.response.body?.cancel();
    let again = await open();
    for (let i = 0; i < 20 && again.status === 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await open();
    }
    expect(again.status).toBe(200);
    for (const s of [...streams.slice(1), again]) await s.response.body?.cancel();
  });
});
