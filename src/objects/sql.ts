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
 * Applies schema migrations in order, each exactly once (idempotent across restarts).
 * Append new entries; never edit an applied one.
 */
export function migrate(storage: DurableObjectStorage, migrations: readonly string[]): void {
  storage.transactionSync(() => {
    storage.sql.exec("CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY)");
    const applied = storage.sql
      .exec<{ v: number | null }>("SELECT MAX(version) AS v FROM _migrations")
      .one().v;
    for (let version = (applied ?? -1) + 1; version < migrations.length; version++) {
      storage.sql.exec(migrations[version]!);
      storage.sql.exec("INSERT INTO _migrations (version) VALUES (?)", version);
    }
  });
}

/** How many migrations this object's storage has applied. */
export function schemaVersion(storage: DurableObjectStorage): number {
  return storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM _migrations").one().n;
}
