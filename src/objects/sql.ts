/**
 * A typed tagged template over `ctx.storage.sql`: values become bound parameters, never text.
 *   const rows = sql<{ id: string }>`SELECT id FROM keys WHERE hash = ${hash}`;
 */
export type Sql = <Row extends Record<string, SqlStorageValue>>(
  strings: TemplateStringsArray,
  ...values: SqlStorageValue[]
) => Row[];

export function sqlTag(storage: DurableObjectStorage): Sql {
  return <Row extends Record<string, SqlStorageValue>>(
    strings: TemplateStringsArray,
    ...values: SqlStorageValue[]
  ) => storage.sql.exec<Row>(strings.join("?"), ...values).toArray();
}

/**
 * Each module of an object owns its migrations under its own key (as cloudflare/agents keys each
 * capability's version): `{ store: [...], consents: [...] }`. A module's list only ever grows at its
 * end; growing one never shifts another's, because each key counts its own applied entries.
 */
export type Migrations = Readonly<Record<string, readonly string[]>>;

/**
 * Objects created before keyed migrations recorded one positional counter over lists spliced in
 * this order. Given the old order, their applied count is split per module once, then dropped.
 */
export type LegacyLayout = ReadonlyArray<readonly [module: string, count: number]>;

/**
 * Applies every module's pending migrations in one transaction, each entry exactly once. An object
 * already up to date only reads: a write here would make its first reply wait on a commit.
 */
export function migrate(storage: DurableObjectStorage, migrations: Migrations, legacy?: LegacyLayout): void {
  storage.transactionSync(() => {
    const sql = storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS _schema (module TEXT PRIMARY KEY, version INTEGER NOT NULL)`);
    if (legacy) adoptLegacy(storage, legacy);
    const applied = schemaVersions(storage);
    for (const [module, list] of Object.entries(migrations)) {
      const at = applied[module] ?? 0;
      if (at > list.length) {
        throw new Error(`module ${module} is at schema ${at}, ahead of this code's ${list.length}`);
      }
      if (at === list.length && module in applied) continue;
      for (let i = at; i < list.length; i++) sql.exec(list[i]!);
      sql.exec(
        "INSERT INTO _schema (module, version) VALUES (?, ?) ON CONFLICT (module) DO UPDATE SET version = excluded.version",
        module,
        list.length,
      );
    }
  });
}

/** Splits a pre-keyed object's positional count among the modules it spliced, then forgets it. */
function adoptLegacy(storage: DurableObjectStorage, layout: LegacyLayout): void {
  const sql = storage.sql;
  const old = sql.exec<{ n: number }>(
    "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '_migrations'",
  );
  if (old.one().n === 0) return;
  let left = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM _migrations").one().n;
  for (const [module, count] of layout) {
    const applied = Math.min(left, count);
    left -= applied;
    sql.exec("INSERT OR REPLACE INTO _schema (module, version) VALUES (?, ?)", module, applied);
  }
  sql.exec("DROP TABLE _migrations");
}

/** Whether the object has ever migrated (read only: asking writes nothing). */
export function hasSchema(storage: DurableObjectStorage): boolean {
  const found = storage.sql.exec<{ n: number }>(
    "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('_schema', '_migrations')",
  );
  return found.one().n > 0;
}

/** How many migrations each module of this object's storage has applied. */
export function schemaVersions(storage: DurableObjectStorage): Record<string, number> {
  const rows = storage.sql.exec<{ module: string; version: number }>("SELECT module, version FROM _schema");
  return Object.fromEntries(rows.toArray().map((r) => [r.module, r.version]));
}
