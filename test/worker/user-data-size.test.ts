/**
 * A user's export is bounded by bytes, not only counts (#34): large artifact values past the
 * export's byte cap are left out and `truncated` says so, so a heavy user's export never fails.
 * Control: the same values under the cap all come, untruncated.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EXPORT_MAX_BYTES, jsonBytes } from "../../src/objects/export-budget.ts";
import type { HubExport } from "../../src/objects/hub/user-data.ts";
import { artifactsObjectName, hubObjectName, spokeObjectName } from "../../src/objects/names.ts";
import type { SpokeExport } from "../../src/objects/spoke/user-data.ts";
import { api } from "./helpers.ts";
import { hubWorld, OWN_BOOK, withInvite } from "./hub-kit.ts";
import { history } from "./user-data-kit.ts";

/** A value under a DO row's size limit; a handful of them pass the export's cap. */
const BIG = 1_500_000;

const bigArtifact = (i: number, size = BIG) => ({
  id: `a_big_${i}`,
  name: `big${i}`,
  intent: "a large saved value",
  semantics: "text",
  query: "q",
  label: { confidentiality: "public", integrity: "trusted" },
  sessionId: "ses_x",
  queryId: "q_x",
  plannedIn: "apps" as const,
  value: `${i}`.padEnd(size, "x"),
});

async function heavyUser(count: number) {
  const w = await hubWorld([]);
  const artifacts = env.ARTIFACTS.getByName(artifactsObjectName(w.tenant.tenantId, "alice"));
  for (let i = 0; i < count; i++) {
    await artifacts.put(bigArtifact(i));
  }
  const res = await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey });
  expect(res.status).toBe(200);
  return res.body as { artifacts: unknown[]; truncated: { artifacts: boolean } };
}

describe("a heavy user's export", () => {
  it("stops at the byte cap and says it was truncated", async () => {
    const count = Math.ceil(EXPORT_MAX_BYTES / BIG) + 1;
    const doc = await heavyUser(count);
    expect(doc.truncated.artifacts).toBe(true);
    expect(doc.artifacts.length).toBe(Math.floor(EXPORT_MAX_BYTES / BIG));
    expect(JSON.stringify(doc).length).toBeLessThanOrEqual(EXPORT_MAX_BYTES + 64 * 1024);
  });

  it("control: under the cap, every large value comes, untruncated", async () => {
    const count = Math.floor(EXPORT_MAX_BYTES / BIG) - 1;
    const doc = await heavyUser(count);
    expect(doc.truncated.artifacts).toBe(false);
    expect(doc.artifacts.length).toBe(count);
  });
});

type Doc = {
  sessions: unknown[];
  spokes: Array<{ appId: string; memory: unknown[] }>;
  truncated: { sessions: boolean; memory: string[] };
};

describe("sessions and memory past the byte cap", () => {
  it("are left out once newer artifacts fill the budget, and truncated names them", async () => {
    const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
    await history(w, "alice", "PLANT-size"); // a session, its artifacts, the contacts app's memory
    const whole = (await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey })).body as Doc;
    // Control: under the cap, the session and the memory come, untruncated.
    expect(whole.sessions).toHaveLength(1);
    expect(whole.spokes.find((s) => s.appId === w.apps.contacts)?.memory.length).toBeGreaterThan(0);
    expect(whole.truncated).toMatchObject({ sessions: false, memory: [] });

    // Newer artifacts that leave 16 bytes of the budget once grants and the rule are counted.
    const base =
      jsonBytes((whole as unknown as { grants: unknown }).grants) +
      jsonBytes((whole as unknown as { standingRules: unknown }).standingRules) +
      jsonBytes((whole as unknown as { audit: unknown }).audit);
    const artifacts = env.ARTIFACTS.getByName(artifactsObjectName(w.tenant.tenantId, "alice"));
    const probe = (await artifacts.put(bigArtifact(0, 1))) as unknown;
    await artifacts.delete("a_big_0");
    const overhead = jsonBytes(probe) + 2; // the metadata (ids of one length), the value's quotes
    let left = EXPORT_MAX_BYTES - base - 16;
    let filled = 0;
    for (let i = 0; left > overhead; i++, filled++) {
      await new Promise((r) => setTimeout(r, 2)); // newest first: distinct times, newer than the history's
      const size = Math.min(BIG, left - overhead);
      await artifacts.put(bigArtifact(i, size));
      left -= overhead + size;
    }
    const doc = (await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey })).body as Doc;
    // Every filler artifact fits (the budget was filled, not overrun); the history's older ones do not.
    const ids = (doc as unknown as { artifacts: Array<{ metadata: { id: string } }> }).artifacts.map(
      (a) => a.metadata.id,
    );
    expect(ids.filter((id) => id.startsWith("a_big_"))).toHaveLength(filled);
    expect(doc.sessions).toEqual([]);
    expect(doc.truncated.sessions).toBe(true);
    expect(doc.truncated.memory).toContain(w.apps.contacts);
    expect(doc.spokes.find((s) => s.appId === w.apps.contacts)?.memory).toEqual([]);
  });
});

describe("each object an export reads", () => {
  it("builds no more than the budget it is given: a hub its queries, a spoke its memory", async () => {
    const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
    await history(w, "alice", "PLANT-budget"); // a session with a query, the contacts app's memory
    const t = w.tenant.tenantId;
    const doc = (await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey })).body as Doc;
    const sid = (doc.sessions[0] as unknown as { session: { id: string } }).session.id;

    const hub = env.HUB.getByName(hubObjectName(t, sid));
    // Control: with the whole budget, every query comes, untruncated.
    const whole = (await hub.exportData(200, EXPORT_MAX_BYTES)) as unknown as HubExport;
    expect(whole.queries.length).toBeGreaterThan(0);
    expect(whole.truncated).toBe(false);
    // With room for the session alone, the hub builds none of its queries and says so.
    const cut = (await hub.exportData(200, jsonBytes(whole.session) + 16)) as unknown as HubExport;
    expect(cut.queries).toEqual([]);
    expect(cut.truncated).toBe(true);

    const spoke = env.SPOKE.getByName(spokeObjectName(t, "alice", w.apps.contacts!));
    const all = (await spoke.exportData(EXPORT_MAX_BYTES)) as unknown as SpokeExport;
    expect(all.memory.length).toBeGreaterThan(0);
    expect(all.memoryTruncated).toBe(false);
    const none = (await spoke.exportData(jsonBytes({ ...all, memory: [] }) + 16)) as unknown as SpokeExport;
    expect(none.memory).toEqual([]);
    expect(none.memoryTruncated).toBe(true);
  });
});
