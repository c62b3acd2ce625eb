import { describe, expect, it } from "vitest";
import { api, createTenant } from "./helpers.ts";

interface Events {
  events: Array<{ seq: number; type: string }>;
}

describe("GET /v1/admin/audit, newest first", () => {
  it("pages back from the newest event with order=desc&before=, and filters by type", async () => {
    const tenant = await createTenant("audit-desc");
    const key = tenant.adminKey;
    for (let i = 0; i < 3; i++) await api("PUT", "/v1/admin/policy", { key, body: {} });
    const all = ((await api("GET", "/v1/admin/audit?limit=1000", { key })).body as Events).events;
    const seqs = all.map((e) => e.seq);
    expect(seqs.length).toBeGreaterThan(4);

    const first = (await api("GET", "/v1/admin/audit?order=desc&limit=2", { key })).body as Events;
    expect(first.events.map((e) => e.seq)).toEqual(seqs.slice(-2).reverse());
    const before = first.events[1]!.seq;
    const next = (await api("GET", `/v1/admin/audit?order=desc&limit=2&before=${before}`, { key }))
      .body as Events;
    expect(next.events.map((e) => e.seq)).toEqual(
      seqs
        .filter((s) => s < before)
        .slice(-2)
        .reverse(),
    );

    const typed = (await api("GET", "/v1/admin/audit?order=desc&type=policy_up", { key })).body as Events;
    const updates = all.filter((e) => e.type.includes("policy_up")).map((e) => e.seq);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    // The control: other types are in the log, so an ignored filter would show here.
    expect(updates.length).toBeLessThan(all.length);
    expect(typed.events.map((e) => e.seq)).toEqual([...updates].reverse());
    // Oldest first stays the default; the type filter applies to it as well.
    const asc = (await api("GET", "/v1/admin/audit?type=policy_up", { key })).body as Events;
    expect(asc.events.map((e) => e.seq)).toEqual(updates);
    expect((await api("GET", "/v1/admin/audit?order=sideways", { key })).status).toBe(400);
  });
});
