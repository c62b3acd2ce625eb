/**
 * A session opened before the user index existed (#34) is named in it when it is opened again or
 * asked a query: the hub keeps a marker, and a session without one is noted. The pre-index session
 * is made by clearing the index row and the marker in storage, then evicting the hub (a deploy's
 * fresh instance). Control: without the reopening, the export does not find it.
 *
 * And an erasure forgets only the index rows it read, as it read them: a row noted again meanwhile
 * (its object made anew between its erase and the forgetting) stays. Control: a row not noted again
 * goes.
 */

import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { artifactsObjectName, hubObjectName } from "../../src/objects/names.ts";
import { api } from "./helpers.ts";
import { display, type HubWorld, hubWorld, lit, openSession } from "./hub-kit.ts";
import { runQuery } from "./user-data-kit.ts";

/** A session as one opened before the index: no index row, no marker, a fresh hub instance. */
async function preIndexSession(w: HubWorld): Promise<string> {
  const sid = await openSession(w, { userId: "alice" });
  const t = w.tenant.tenantId;
  await runInDurableObject(env.ARTIFACTS.getByName(artifactsObjectName(t, "alice")), (_, state) => {
    state.storage.sql.exec("DELETE FROM user_objects");
  });
  const hub = env.HUB.getByName(hubObjectName(t, sid));
  await runInDurableObject(hub, async (_, state) => {
    expect(await state.storage.get("index:noted")).toBe(true); // the marker a new session gets
    await state.storage.delete("index:noted");
  });
  await evictDurableObject(hub);
  return sid;
}

const exported = async (w: HubWorld) => {
  const res = await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey });
  expect(res.status).toBe(200);
  return (res.body as { sessions: Array<{ session: { id: string } }> }).sessions.map((s) => s.session.id);
};

describe("a session opened before the user index", () => {
  it("is named in the index when it is opened again", async () => {
    const w = await hubWorld([]);
    const sid = await preIndexSession(w);
    // Control: as it stands, the export does not find it.
    expect(await exported(w)).toEqual([]);
    const hub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
    await hub.open({ id: sid, tenantId: w.tenant.tenantId, userId: "alice", private: false });
    expect(await exported(w)).toEqual([sid]);
  });

  it("is named in the index at its next query", async () => {
    const w = await hubWorld([]);
    const sid = await preIndexSession(w);
    expect(await exported(w)).toEqual([]);
    const q = await runQuery(w, sid, "Say hello", { steps: [display(lit("hello"))] });
    expect(q.status).toBe("completed");
    expect(await exported(w)).toEqual([sid]);
  });
});

describe("a session's index marker", () => {
  it("stays when a chat turn settles: the session is named once, not again after each turn", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w, { userId: "alice" });
    const hub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
    const q = await runQuery(w, sid, "Say hello", { steps: [display(lit("hello"))] });
    await hub.oweTurn(q.id);
    await hub.settleTurn(q.id);
    await runInDurableObject(hub, async (_, state) => {
      expect(await state.storage.get("chat:owed")).toBeUndefined();
      expect(await state.storage.get("index:noted")).toBe(true);
    });
  });
});

describe("an erasure's forgetting of the index", () => {
  it("keeps a row noted again after the erasure read the index; drops the others", async () => {
    const artifacts = env.ARTIFACTS.getByName(artifactsObjectName("t_race", "alice"));
    await artifacts.noteObject("session", "ses_remade");
    await artifacts.noteObject("session", "ses_gone");
    await artifacts.noteObject("spoke", "app_gone");
    const read = await artifacts.userObjects(); // the erasure begins
    expect(read.sessions).toEqual(["ses_remade", "ses_gone"]);
    await artifacts.noteObject("session", "ses_remade"); // made anew while the erasure runs
    await artifacts.noteObject("session", "ses_new"); // first made while it runs
    await artifacts.forgetObjects(read.seen);
    const after = await artifacts.userObjects();
    expect(after.sessions).toEqual(["ses_remade", "ses_new"]);
    // Control: the rows not noted again went.
    expect(after.spokes).toEqual([]);
    // A later erasure reads the kept row afresh and forgets it.
    await artifacts.forgetObjects(after.seen);
    expect((await artifacts.userObjects()).seen).toEqual([]);
  });
});
