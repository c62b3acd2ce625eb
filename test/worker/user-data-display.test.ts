/**
 * A user's export meets the display policy (#34): the user token is the frontend's, and the display
 * cap is the one boundary to the frontend, so an export by user token withholds what the artifacts
 * route withholds (and the spoke's memory above the cap). Control: the admin key, answering the
 * data-rights request itself, reads the same export whole.
 */
import { describe, expect, it } from "vitest";
import { HEALTH_SECRET } from "../../examples/apps/src/attacker.ts";
import { api } from "./helpers.ts";
import { display, hubWorld, openSession, ref, script, settle, startWith, tool } from "./hub-kit.ts";
import { userToken } from "./user-data-kit.ts";

type Doc = {
  artifacts: Array<{ metadata: { label: { confidentiality: string } }; value?: unknown; withheld?: true }>;
  spokes: Array<{ appId: string; memory: Array<{ withheld?: true; levels: string[] | null }> }>;
};

async function secretHistory() {
  const w = await hubWorld(["health"], { display: { maxConfidentiality: "confidential" } });
  await script(w.models.planner, [
    { respond: { steps: [tool("r", "health.records", {}), display(ref("r"))] } },
  ]);
  const sid = await openSession(w);
  const q = await settle(w, sid, await startWith(w, sid, "Show my health record", {}));
  expect(q.status).toBe("completed");
  return w;
}

describe("a user's export and the display cap", () => {
  it("withholds from a user token what is above the cap; the admin key reads it whole", async () => {
    const w = await secretHistory();
    const mine = await api("GET", "/v1/users/alice/export", { key: await userToken(w, "alice") });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const doc = mine.body as Doc;
    const secret = doc.artifacts.find((a) => a.metadata.label.confidentiality === "secret");
    expect(secret).toMatchObject({ withheld: true });
    expect(secret && "value" in secret).toBe(false);
    const memory = doc.spokes.find((s) => s.appId === w.apps.health)?.memory ?? [];
    expect(memory.length).toBeGreaterThan(0);
    expect(memory.every((m) => m.withheld === true)).toBe(true);
    expect(JSON.stringify(doc)).not.toContain(HEALTH_SECRET);

    // Control: the admin's export of the same user carries the value and the memory.
    const all = await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey });
    expect(all.status).toBe(200);
    const whole = all.body as Doc;
    const value = whole.artifacts.find((a) => a.metadata.label.confidentiality === "secret");
    expect(value?.withheld).toBeUndefined();
    expect(JSON.stringify(value?.value)).toContain(HEALTH_SECRET);
    const kept = whole.spokes.find((s) => s.appId === w.apps.health)?.memory ?? [];
    expect(kept.some((m) => m.withheld)).toBe(false);
    expect(JSON.stringify(kept)).toContain(HEALTH_SECRET);
  });
});
