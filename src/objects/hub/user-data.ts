import { jsonBytes } from "../export-budget.ts";
import type { Sql } from "../sql.ts";
import { artifactsStub } from "../stubs.ts";
import type { HubStore, QueryRecord, Session } from "./store.ts";
import type { QueryView } from "./view.ts";

/** Storage key marking the session named in its user's index (#34); absent on sessions opened before it. */
const INDEXED_KEY = "index:noted";

/** Every table a hub keeps (migrations.ts): an erasure clears each. */
const HUB_TABLES = [
  "session",
  "queries",
  "journal",
  "display",
  "events",
  "consents",
  "session_grants",
  "ephemeral",
] as const;

export type HubErased = Record<"queries" | "events" | "consents" | "displayItems", number>;
export type HubExport = { session: Session; queries: QueryView[]; truncated: boolean };

/** What the user-data rights need of their hub (HubDO). */
export interface HubUserDataContext {
  ctx: DurableObjectState;
  env: Env;
  sql: Sql;
  store: HubStore;
  /** Whether the hub was ever opened (HubDO.opened): one never opened has nothing to erase. */
  opened: () => boolean;
  session: () => Session | null;
  view: (row: QueryRecord) => QueryView;
  /** One advance at a time (HubDO.serially): an erasure runs between two. */
  serially: (work: () => Promise<void>) => Promise<void>;
}

/**
 * A session's part in its user's data rights (#34): naming the session in the user's index
 * (ArtifactsDO), and its export and erasure, called by the user-data routes, never on a query's path.
 */
export class HubUserData {
  private readonly hub: HubUserDataContext;
  /** Whether the session is known to be named in its user's index (the `INDEXED_KEY` marker read). */
  private indexed = false;

  constructor(hub: HubUserDataContext) {
    this.hub = hub;
  }

  /**
   * Names the session in its user's index unless the marker says it was: a session opened before the
   * index existed has no marker, and is named at its next opening or query (as a spoke is at its
   * next use).
   * The marker is read once per instance, so a reopening pays one storage read per hub lifetime.
   */
  async noteInIndex(session: Pick<Session, "id" | "tenantId" | "userId">): Promise<void> {
    if (this.indexed) return;
    const { ctx, env } = this.hub;
    if ((await ctx.storage.get(INDEXED_KEY)) !== true) {
      await artifactsStub(env, session.tenantId, session.userId).noteObject("session", session.id);
      await ctx.storage.put(INDEXED_KEY, true);
    }
    this.indexed = true;
  }

  /** Drops the marker: the session is named in its user's index again at its next opening or query. */
  private async forgetNoted(): Promise<void> {
    await this.hub.ctx.storage.delete(INDEXED_KEY); // a session opened anew on this id is named again
    this.indexed = false;
  }

  /**
   * The session and its queries as the user would see each (text, answers, plan, trace of events,
   * consents and their decisions), oldest first, up to `maxQueries` and `maxBytes` of JSON (the
   * export's budget left): `truncated` past either. Each query is built and measured in turn, so a
   * long history costs the hub and the route no more than the budget.
   */
  exportData(maxQueries: number, maxBytes: number): HubExport | null {
    const { sql, store, view } = this.hub;
    const session = this.hub.session();
    if (!session) return null;
    const ids = sql<{ id: string }>`SELECT id FROM queries ORDER BY seq LIMIT ${maxQueries + 1}`;
    let truncated = ids.length > maxQueries;
    // As the route counts it: the session with its wrapper, then each query.
    let bytes = jsonBytes({ session, queries: [], truncated: true }) + 1;
    const queries: QueryView[] = [];
    for (const { id } of ids.slice(0, maxQueries)) {
      const row = store.query(id);
      if (!row) continue;
      const query = view(row);
      const size = jsonBytes(query) + 1; // and its comma
      if (bytes + size > maxBytes) {
        truncated = true;
        break;
      }
      bytes += size;
      queries.push(query);
    }
    return { session, queries, truncated };
  }

  /**
   * Erases the session: its alarm first (a live query stops), then, between two advances (`serially`,
   * so no step writes after), every row of every table and the chat marker. What was cleared is
   * counted; a hub already erased, or never opened, counts nothing. The session is gone after: its
   * id finds nothing, as an unknown id does.
   */
  async erase(): Promise<HubErased> {
    const { ctx, store } = this.hub;
    const zero = { queries: 0, events: 0, consents: 0, displayItems: 0 };
    if (!this.hub.opened()) return zero;
    await ctx.storage.deleteAlarm();
    let counts = zero;
    await this.hub.serially(async () => {
      counts = ctx.storage.transactionSync(() => {
        const count = (table: string) =>
          ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
        const cleared = {
          queries: count("queries"),
          events: count("events"),
          consents: count("consents"),
          displayItems: count("display"),
        };
        for (const table of HUB_TABLES) ctx.storage.sql.exec(`DELETE FROM ${table}`);
        return cleared;
      });
      await ctx.storage.delete("chat:owed");
      await this.forgetNoted();
      await ctx.storage.deleteAlarm();
      store.forgetSession();
    });
    return counts;
  }
}
