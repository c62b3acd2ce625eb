/**
 * A demo MCP server's state: one JSON blob per world and app in the world's Durable Object. The servers
 * run in the Worker, so a change reads the blob, applies the change and writes it back only if nobody
 * wrote in between (the world's compare-and-swap), retrying otherwise.
 */

/** The DemoWorld RPC methods the MCP servers use. */
export interface BlobStore {
  getBlob(key: string): Promise<{ json: string | null; version: number }>;
  putBlob(key: string, json: string, version: number): Promise<boolean>;
}

export interface JsonState<S> {
  /** The current state (the seed until the first change). */
  read(): Promise<S>;
  /**
   * Applies `change` (mutates the state, returns a result) atomically. It may run more than once, so
   * it must have no effect besides the state.
   */
  update<R>(change: (state: S) => R): Promise<R>;
}

const MAX_ATTEMPTS = 8;

export function jsonState<S>(store: BlobStore, key: string, seed: () => S): JsonState<S> {
  const load = async () => {
    const blob = await store.getBlob(key);
    return { state: blob.json === null ? seed() : (JSON.parse(blob.json) as S), version: blob.version };
  };
  return {
    read: async () => (await load()).state,
    async update(change) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const { state, version } = await load();
        const result = change(state);
        if (await store.putBlob(key, JSON.stringify(state), version)) return result;
      }
      throw new Error(`${key}: too many concurrent changes`);
    },
  };
}

export interface Note {
  id: string;
  title: string;
  body: string;
}

/** Notes whose title or body holds every word of `query` (case-insensitive); all for an empty query. */
export function searchNotes(notes: readonly Note[], query: string): Note[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return notes.filter((n) => {
    const text = `${n.title}\n${n.body}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
