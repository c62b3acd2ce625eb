/**
 * A user's data rights (#34): export carries every object class; erasure clears each, keeps the
 * audit rows with their values redacted, records itself, and is idempotent. The walk reads every
 * object's storage directly. Control: the same walk before erasure finds the planted strings, and
 * another user's data stays whole.
 */
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/objects/tenant/audit.ts";
import { api, readAudit } from "./helpers.ts";
import { hubWorld, OWN_BOOK, withInvite } from "./hub-kit.ts";
import { history, userToken, walk } from "./user-data-kit.ts";

const world = () => hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
describe("a user's data rights", () => {
  it("export carries every section; erasure clears every object class and keeps the audit redacted", async () => {
    const w = await world();
    const sid = await history(w, "alice", "PLANT-alice-7q");
    const other = await history(w, "bob", "PLANT-bob-3z");

    const exported = await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const doc = exported.body as Record<string, unknown> & {
      sessions: Array<{ session: { id: string }; queries: Array<{ text: string }> }>;
      artifacts: unknown[];
      standingRules: unknown[];
      spokes: Array<{ appId: string; memory: unknown[] }>;
      audit: Array<{ type: string }>;
    };
    expect(doc.format).toBe("lattice.user-export.v1");
    expect(doc.sessions.map((s) => s.session.id)).toEqual([sid]);
    expect(doc.sessions[0]!.queries[0]!.text).toBe("Find my landlord PLANT-alice-7q");
    expect(doc.artifacts.length).toBeGreaterThan(0);
    expect(doc.standingRules).toHaveLength(1);
    expect(doc.spokes.find((s) => s.appId === w.apps.contacts)?.memory.length).toBeGreaterThan(0);
    expect(JSON.stringify(doc.audit)).toContain("failed on PLANT-alice-7q");
    expect(JSON.stringify(doc)).not.toContain("PLANT-bob");

    // The user's own token reads its own export; not another user's; a frontend key reads none.
    const token = await userToken(w, "alice");
    expect((await api("GET", "/v1/users/alice/export", { key: token })).status).toBe(200);
    expect((await api("GET", "/v1/users/bob/export", { key: token })).status).toBe(403);
    expect((await api("GET", "/v1/users/alice/export", { key: w.frontend })).status).toBe(403);

    // Control: before erasure, the walk finds what was planted (the log too).
    expect(JSON.stringify(await readAudit(w.tenant.tenantId))).toContain("PLANT-alice-7q");
    expect(await walk(w, "alice", [sid])).toContain("PLANT-alice-7q");
    expect(await walk(w, "alice", [sid])).toContain("landlord");

    const erased = await api("DELETE", "/v1/users/alice", { key: w.tenant.adminKey });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const report = erased.body as { cleared: Record<string, number> };
    expect(report.cleared).toMatchObject({ sessions: 1, queries: 1, standingRules: 1, spokes: 1 });
    expect(report.cleared.artifacts).toBeGreaterThan(0);
    expect(report.cleared.memoryInteractions).toBeGreaterThan(0);
    expect(report.cleared.auditRedacted).toBeGreaterThan(0);

    const after = await walk(w, "alice", [sid]);
    expect(after).not.toContain("PLANT-alice-7q");
    expect(after).not.toContain("landlord");
    // The session is gone: its id finds nothing.
    expect((await api("GET", `/v1/sessions/${sid}/queries/x`, { key: w.frontend })).status).toBe(404);

    // Audit: rows about alice kept, kinds and times whole, values redacted; the erasure recorded.
    const audit = await readAudit(w.tenant.tenantId);
    const hers = audit.filter((e) => JSON.stringify(e.detail).includes('"alice"'));
    expect(hers.length).toBeGreaterThan(0);
    expect(JSON.stringify(hers)).not.toContain("PLANT-alice-7q");
    const erasure = audit.find((e) => e.type === "user_erased");
    expect(erasure?.detail).toMatchObject({ userId: "alice", keyId: expect.any(String) });
    const failed = hers.find((e) => e.type === "query_failed");
    expect(failed?.detail).toEqual({
      userId: "alice",
      sessionId: sid,
      queryId: "q_x",
      reason: REDACTED,
      code: "failed",
    });
    expect(JSON.stringify(audit)).toContain("PLANT-bob-3z"); // another user's rows stay whole

    // Another user's data is whole.
    expect(await walk(w, "bob", [other])).toContain("PLANT-bob-3z");
    const bobs = await api("GET", "/v1/users/bob/export", { key: w.tenant.adminKey });
    expect(JSON.stringify(bobs.body)).toContain("PLANT-bob-3z");

    // Idempotent: a second erasure succeeds with nothing left to clear.
    const again = await api("DELETE", "/v1/users/alice", { key: w.tenant.adminKey });
    expect(again.status).toBe(200);
    expect(
      Object.values((again.body as { cleared: Record<string, number> }).cleared).every((n) => n === 0),
    ).toBe(true);
    const empty = (await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey })).body as typeof doc;
    expect([empty.sessions, empty.artifacts, empty.standingRules, empty.spokes]).toEqual([[], [], [], []]);
  });

  it("lets a user erase themselves with their own token, never another user", async () => {
    const w = await world();
    await history(w, "carol", "PLANT-carol-1");
    const token = await userToken(w, "carol");
    expect((await api("DELETE", "/v1/users/dave", { key: token })).status).toBe(403);
    expect((await api("DELETE", "/v1/users/carol", { key: w.frontend })).status).toBe(403);
    const res = await api("DELETE", "/v1/users/carol", { key: token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body as { cleared: { queries: number } }).cleared.queries).toBe(1);
  });
});
