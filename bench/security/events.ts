/**
 * A session's event stream (`GET /v1/sessions/{id}/events`, SSE) as the driver's clock: the driver
 * looks at its query again when the hub pushes an event that asks something of it (a consent, the
 * end), as a frontend following the stream would: not every 20 ms (which added up to a poll interval
 * to each wait), and not at every step's event (each look is a read the busy hub serves in between).
 */
import { readEvents } from "../../clients/typescript/src/events.ts";

export interface Wakeups {
  /** How many events have arrived so far: take it before looking at the query. */
  mark(): number;
  /**
   * Resolves once an event of one of `types` has arrived after `mark`, or after `ms` at the latest
   * (a safety net).
   */
  after(mark: number, ms: number, types: ReadonlySet<string>): Promise<void>;
  close(): void;
}

export async function followEvents(api: string, key: string, sessionId: string): Promise<Wakeups> {
  const abort = new AbortController();
  const res = await fetch(`${api}/v1/sessions/${sessionId}/events`, {
    headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" },
    signal: abort.signal,
  });
  if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
  const seen: string[] = []; // each event's type, in order
  const state: { waiting: (() => void) | null } = { waiting: null };
  void (async () => {
    try {
      for await (const event of readEvents(res.body!)) {
        seen.push(event.type);
        state.waiting?.();
      }
    } catch {
      // Aborted at close (or the stream broke): the driver's safety net keeps it going.
    }
  })();
  return {
    mark: () => seen.length,
    after(mark, ms, types) {
      const arrived = () => seen.slice(mark).some((type) => types.has(type));
      if (arrived()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        state.waiting = () => {
          if (!arrived()) return;
          clearTimeout(timer);
          resolve();
        };
      });
    },
    close: () => abort.abort(),
  };
}
