/**
 * The display policy is one boundary: every path by which a value leaves to a frontend applies it
 * (display items, consent data, artifact reads, traces). Each with its control: the cap raised.
 */
import { describe, expect, it } from "vitest";
import { HEALTH_SECRET } from "../../examples/apps/src/attacker.ts";
import { api } from "./helpers.ts";
import {
  display,
  type HubWorld,
  hubWorld,
  openSession,
  ref,
  script,
  settle,
  startWith,
  tool,
} from "./hub-kit.ts";

/** A query that reads the health record (secret) and shows it: an artifact `r` is left behind. */
async function recordQuery(cap: string | null): Promise<{ w: HubWorld; body: string; artifact: unknown }> {
  const w = await hubWorld(["health"], cap ? { display: { maxConfidentiality: cap } } : {});
  await script(w.models.planner, [
    { respond: { steps: [tool("r", "health.records", {}), display(ref("r"))] } },
  ]);
  const sid = await openSession(w);
  const q = await settle(w, sid, await startWith(w, sid, "Show my health record", {}));
  expect(q.status).toBe("completed");
  const list = await api("GET", "/v1/users/alice/artifacts", { key: w.frontend });
  const [meta] = (list.body as { artifacts: Array<{ id: string; name: string }> }).artifacts;
  expect(meta?.name).toBe("r");
  const read = await api("GET", `/v1/users/alice/artifacts/${meta!.id}`, { key: w.frontend });
  expect(read.status).toBe(200);
  return { w, body: JSON.stringify(q), artifact: read.body };
}

describe("a value above the display cap", () => {
  it("is not readable through the artifacts route, the display or the trace", async () => {
    const { body, artifact } = await recordQuery("confidential");
    expect(artifact).toMatchObject({ withheld: true, metadata: { label: { confidentiality: "secret" } } });
    expect(JSON.stringify(artifact)).not.toContain(HEALTH_SECRET);
    expect(body).not.toContain(HEALTH_SECRET);
  });

  it("control: with no cap, the same record is readable and shown", async () => {
    const { body, artifact } = await recordQuery(null);
    expect(JSON.stringify(artifact)).toContain(HEALTH_SECRET);
    expect(body).toContain(HEALTH_SECRET);
  });
});
