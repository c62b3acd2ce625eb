import { it, expect } from "vitest";
import { fillPlan, seedPlan } from "../../bench/perf/plans.ts";
import { api } from "./helpers.ts";
import { ask, hubWorld, openSession, script, settle } from "./hub-kit.ts";

it("fills", async () => {
  const w = await hubWorld(["contacts"], { limits: { maxSteps: 2000 } });
  await script(w.models.planner, [{ when: "seed", respond: seedPlan() }]);
  const sid = await openSession(w);
  expect((await settle(w, sid, await ask(w, sid, "seed"))).status).toBe("completed");
  const list = await api("GET", "/v1/users/alice/artifacts?limit=1", { key: w.frontend });
  const id = (list.body as { artifacts: Array<{ id: string }> }).artifacts[0]!.id;
  await script(w.models.planner, [{ respond: fillPlan(450, id) }]);
  const t0 = Date.now();
  const q = await settle(w, sid, await ask(w, sid, "fill"), 120_000);
  console.log("fill took", Date.now() - t0, q.status, JSON.stringify(q.error));
}, 180_000);
