/** Retention: finished queries and audit events past the tenant's limits are forgotten; newer ones stay. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hubObjectName, tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { api } from "./helpers.ts";
import { display, hubWorld, lit, openSession, ref, script, settle, startWith, tool } from "./hub-kit.ts";

async function aged(retention: Record<string, number>) {
  const w = await hubWorld(["contacts"], { retention });
  await script(w.models.planner, [
    { respond: { steps: [tool("c", "contacts.lookup", { name: lit("landlord") }), display(ref("c"))] } },
  ]);
  const sid = await openSession(w);
  const first = await startWith(w, sid, "Look up my landlord", {});
  expect((await settle(w, sid, first)).status).toBe("completed");
  // Forty days pass for the first query.
  await runInDurableObject(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)), async (_i, state) => {
    state.storage.sql.exec(
      "UPDATE queries SET updated_at = ? WHERE id = ?",
      new Date(Date.now() - 40 * 86_400_000).toISOString(),
      first,
    );
  });
  expect((await settle(w, sid, await startWith(w, sid, "Look up my landlord", {}))).status).toBe("completed");
  return api("GET", `/v1/sessions/${sid}/queries/${first}`, { key: w.frontend });
}

describe("retention", () => {
  it("forgets a session's finished query after queryDays (30 by default), events and all", async () => {
    expect((await aged({})).status).toBe(404);
  });

  it("control: with queryDays 60 the forty-day-old query is still there", async () => {
    expect((await aged({ queryDays: 60 })).status).toBe(200);
  });

  it("prunes audit events older than auditDays as the log grows", async () => {
    const w = await hubWorld([]);
    const tenant = env.TENANT.getByName(tenantObjectName(w.tenant.tenantId));
    await runInDurableObject(tenant, async (_i, state) => {
      state.storage.sql.exec(
        "INSERT INTO audit (at, type, detail) VALUES (?, 'ancient', '{}')",
        new Date(Date.now() - 200 * 86_400_000).toISOString(),
      );
    });
    const t = rpc<TenantDO>(tenant);
    for (let i = 0; i < 100; i++) await t.audit("api_write", { filler: i });
    const events = await t.readAudit({ seq: 0 }, 1000);
    expect(events.map((e) => e.type)).not.toContain("ancient");
    expect(events.filter((e) => e.detail.filler !== undefined)).toHaveLength(100);
  });
});
