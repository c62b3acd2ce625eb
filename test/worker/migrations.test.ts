import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONSENT_MIGRATIONS } from "../../src/objects/hub/consents.ts";
import { EPHEMERAL_MIGRATIONS } from "../../src/objects/hub/ephemeral.ts";
import { HUB_LEGACY_LAYOUT, HUB_MIGRATIONS } from "../../src/objects/hub/migrations.ts";
import { STORE_MIGRATIONS } from "../../src/objects/hub/store.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { migrate, schemaVersions } from "../../src/objects/sql.ts";

const today = HUB_MIGRATIONS;
const LEGACY = HUB_LEGACY_LAYOUT;

async function hubWithData(name: string) {
  const stub = env.HUB.getByName(hubObjectName("t_mig", name));
  await stub.open({ id: name, tenantId: "t_mig", userId: "u1", private: false });
  return stub;
}

describe("keyed migrations", () => {
  it("appending to one module upgrades an existing object and keeps its data", async () => {
    const stub = await hubWithData("ses_grow");
    await runInDurableObject(stub, (_instance, state) => {
      const at = {
        ephemeral: EPHEMERAL_MIGRATIONS.length,
        store: STORE_MIGRATIONS.length,
        consents: CONSENT_MIGRATIONS.length,
      };
      expect(schemaVersions(state.storage)).toEqual(at);
      // A later release appends a table to the store module only; the consent module is untouched.
      const grown = { ...today, store: [...STORE_MIGRATIONS, "CREATE TABLE notes (id TEXT PRIMARY KEY)"] };
      migrate(state.storage, grown);
      migrate(state.storage, grown); // idempotent: a restart applies nothing twice
      state.storage.sql.exec("INSERT INTO notes VALUES ('n1')");
      expect(schemaVersions(state.storage)).toEqual({ ...at, store: at.store + 1 });
      expect(state.storage.sql.exec("SELECT user_id FROM session").one().user_id).toBe("u1");
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM session_grants").one().n).toBe(0);
    });
  });

  it("adopts an object written under the old positional counter, then grows it", async () => {
    const stub = await hubWithData("ses_legacy");
    await runInDurableObject(stub, (_instance, state) => {
      // Rewind it to what the spliced layout left: its nine entries' tables, one counter over them.
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE display DROP COLUMN provenance");
      sql.exec("ALTER TABLE session DROP COLUMN roles");
      sql.exec("DROP INDEX events_by_query");
      sql.exec("ALTER TABLE queries DROP COLUMN picks");
      sql.exec("ALTER TABLE queries DROP COLUMN trace");
      sql.exec("DROP TABLE _schema");
      sql.exec("CREATE TABLE _migrations (version INTEGER PRIMARY KEY)");
      for (let v = 0; v < 9; v++) sql.exec("INSERT INTO _migrations (version) VALUES (?)", v);
      const grown = { ...today, consents: [...CONSENT_MIGRATIONS, "CREATE TABLE later (id TEXT)"] };
      migrate(state.storage, grown, LEGACY);
      // The store's entries added since (6 to 10) run on adoption; consents grows by the new one.
      expect(schemaVersions(state.storage)).toEqual({
        ephemeral: 1,
        store: STORE_MIGRATIONS.length,
        consents: 4,
      });
      expect(sql.exec("SELECT roles FROM session").one().roles).toBeNull();
      expect(sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = '_migrations'").one().n).toBe(0);
      expect(sql.exec("SELECT user_id FROM session").one().user_id).toBe("u1");
      sql.exec("INSERT INTO later VALUES ('x')");
    });
  });

  it("an object already up to date only reads: its constructor leaves nothing to commit", async () => {
    const stub = await hubWithData("ses_current");
    await runInDurableObject(stub, (_instance, state) => {
      // Every statement migrate runs, with the rows each wrote (a write would hold the first reply).
      let written = 0;
      const sql = new Proxy(state.storage.sql, {
        get: (target, prop) =>
          prop === "exec"
            ? (query: string, ...bindings: SqlStorageValue[]) => {
                const cursor = target.exec(query, ...bindings);
                const rows = cursor.toArray();
                written += cursor.rowsWritten;
                return { toArray: () => rows, one: () => rows[0] };
              }
            : Reflect.get(target, prop),
      });
      const storage = new Proxy(state.storage, {
        get: (target, prop) => {
          if (prop === "sql") return sql;
          const value: unknown = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      migrate(storage, today);
      expect(written).toBe(0);
      // The control: a module one entry behind is written (its table and its version).
      migrate(storage, { ...today, store: [...STORE_MIGRATIONS, "CREATE TABLE later2 (id TEXT)"] });
      expect(written).toBeGreaterThan(0);
    });
  });

  it("reads a query's events through their index, not by scanning the session's", async () => {
    const stub = await hubWithData("ses_events");
    const plan = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec(
          "EXPLAIN QUERY PLAN SELECT * FROM events WHERE seq > 0 AND query_id = 'q_x' ORDER BY seq LIMIT 500",
        )
        .toArray()
        .map((row) => String(row.detail)),
    );
    // The control, the schema before this index: a search of the primary key from seq 0, i.e. every
    // event of the session.
    expect(plan.join(" | ")).toContain("USING INDEX events_by_query");
  });

  it("refuses to run code older than the object's schema", async () => {
    const stub = await hubWithData("ses_ahead");
    await runInDurableObject(stub, (_instance, state) => {
      expect(() => migrate(state.storage, { ...today, store: STORE_MIGRATIONS.slice(0, 4) })).toThrow(
        /ahead/,
      );
    });
  });
});

describe("stored policies across the planning-mode change", () => {
  it("reads a policy stored before planning modes as apps mode; a new one names its mode", async () => {
    const { createTenant, api } = await import("./helpers.ts");
    const { tenantObjectName } = await import("../../src/objects/names.ts");
    const tenant = await createTenant();
    const stub = env.TENANT.getByName(tenantObjectName(tenant.tenantId));
    // A document as an earlier release stored it: no `planning` field.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO policies (version, document, created_at) VALUES (1, ?, ?)",
        JSON.stringify({ onViolation: "ask" }),
        new Date().toISOString(),
      );
    });
    const legacy = await api("GET", "/v1/admin/policy", { key: tenant.adminKey });
    expect(legacy.body).toMatchObject({
      version: 1,
      policy: { onViolation: "ask", planning: { mode: "apps" } },
    });
    // Written today without a mode: the default, catalog, is stored with it.
    expect(
      (await api("PUT", "/v1/admin/policy", { key: tenant.adminKey, body: { onViolation: "ask" } })).status,
    ).toBe(200);
    const fresh = await api("GET", "/v1/admin/policy", { key: tenant.adminKey });
    expect(fresh.body).toMatchObject({ version: 2, policy: { planning: { mode: "catalog" } } });
  });
});
