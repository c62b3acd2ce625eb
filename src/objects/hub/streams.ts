import type { HubEvent } from "../../runtime/index.ts";
import { randomId } from "../crypto.ts";

/** The hub's event log after a seq, in order (of one query, or all), at most `limit` events. */
type ReadLog = (afterSeq: number, queryId: string | undefined, limit: number) => HubEvent[];

/** A query's stream ends after these: the query finished, or it waits for the user. */
const STOP_TYPES = new Set(["query_finished", "consent_requested"]);
/** Replay reads the log this many events at a time, yielding between pages to the hub's other work. */
const PAGE = 100;
const encoder = new TextEncoder();

interface Sink {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  queryId: string | undefined;
  /** The last event sent. */
  seq: number;
  /** Caught up with the log: new events are pushed as they are written. */
  live: boolean;
  timer: ReturnType<typeof setTimeout>;
  /** Keeps an idle stream writing, so a client that went away is noticed (and proxies keep it open). */
  ping: ReturnType<typeof setInterval>;
  /** Bytes written and not yet taken by the client. */
  queued: number;
  /** The newest write, settled once the client has taken it. */
  last: Promise<void>;
}

/** A client that reads this far behind is cut off; it resumes with Last-Event-ID, the log has it all. */
const MAX_QUEUED_BYTES = 256 * 1024;
const PING_MS = 20_000;
/** A replay waits for the client past this many unread bytes: it is paced, never cut off. */
const REPLAY_PACE_BYTES = 64 * 1024;

interface Lease {
  until: number;
  sink?: Sink;
}

/**
 * The open event streams of one hub instance. A lease bounds their number; a stream opened on it
 * first replays the stored log after the client's last event, then gets each new event pushed
 * right after the store writes it. Everything lives in memory: an evicted hub's streams end with
 * it, and clients reconnect with Last-Event-ID.
 */
export class EventStreams {
  private readonly leases = new Map<string, Lease>();
  private readonly read: ReadLog;

  constructor(read: ReadLog) {
    this.read = read;
  }

  /** A place for one stream, or null at `max`. A place never opened lapses after `ttlMs`. */
  lease(max: number, ttlMs: number): string | null {
    const id = randomId("st", 8);
    return this.take(id, max, ttlMs) ? id : null;
  }

  /** Ends the lease's stream (after what was already written to it) and frees the place. */
  release(id: string): void {
    const sink = this.leases.get(id)?.sink;
    this.leases.delete(id);
    if (!sink) return;
    clearTimeout(sink.timer);
    clearInterval(sink.ping);
    sink.live = false;
    // A client far behind gets no more: its buffered frames are dropped, not held until it reads.
    if (sink.queued > MAX_QUEUED_BYTES) sink.writer.abort().catch(() => {});
    else sink.writer.close().catch(() => {}); // already cancelled by the client: nothing to flush
  }

  /**
   * The stream of events after `after` (of `queryId` only, if given) on a lease, ended after
   * `maxMs`. A lease this instance does not know (taken from one since evicted) is taken again,
   * under the same id, if a place is free; null if none is.
   */
  open(
    id: string,
    opts: { after: number; queryId?: string; max: number; maxMs: number },
  ): ReadableStream<Uint8Array> | null {
    if (!this.leases.has(id) && !this.take(id, opts.max, opts.maxMs)) return null;
    const held = this.leases.get(id);
    if (!held || held.sink) return null;
    // A byte stream of the runtime's own: its writes wait for the output gate, so no event leaves
    // before its storage write is confirmed.
    const { readable, writable } = new IdentityTransformStream();
    const sink: Sink = {
      writer: writable.getWriter(),
      queryId: opts.queryId,
      seq: opts.after,
      live: false,
      timer: setTimeout(() => this.release(id), opts.maxMs),
      ping: setInterval(() => this.write(id, sink, ": ping\n\n"), PING_MS),
      queued: 0,
      last: Promise.resolve(),
    };
    held.sink = sink;
    held.until = Number.POSITIVE_INFINITY; // the timer or the client's going away frees it now
    // Closed by us, or cancelled by the client (the writer errors): either way the place is free.
    sink.writer.closed.then(
      () => this.release(id),
      () => this.release(id),
    );
    this.replay(id, sink).catch(() => this.release(id));
    return readable;
  }

  /** One frame, counted until the client takes it; a client past MAX_QUEUED_BYTES behind is cut off. */
  private write(id: string, sink: Sink, frame: string): boolean {
    const bytes = encoder.encode(frame);
    sink.queued += bytes.byteLength;
    // A cancelled stream is freed by `closed`; a taken frame no longer counts.
    sink.last = sink.writer.write(bytes).then(
      () => {
        sink.queued -= bytes.byteLength;
      },
      () => {},
    );
    // Only a live stream is cut off: a replay paces itself (see replay).
    if (!sink.live || sink.queued <= MAX_QUEUED_BYTES) return true;
    this.release(id);
    return false;
  }

  private take(id: string, max: number, ttlMs: number): boolean {
    const now = Date.now();
    for (const [held, lease] of this.leases) if (lease.until <= now) this.release(held);
    if (this.leases.size >= max) return false;
    this.leases.set(id, { until: now + ttlMs });
    return true;
  }

  /**
   * Sends a just-written event to every caught-up stream it matches. The event is built and its
   * frame serialised once, and only if some stream takes it (most emits have none listening).
   */
  push(written: () => HubEvent): void {
    let event: HubEvent | undefined;
    let frame: string | undefined;
    for (const [id, { sink }] of this.leases) {
      if (!sink?.live) continue;
      event ??= written();
      if (event.seq <= sink.seq || (sink.queryId && sink.queryId !== event.queryId)) continue;
      frame ??= frameOf(event);
      this.send(id, sink, event, frame);
    }
  }

  /**
   * Sends the stored events the client missed, a page at a time, then turns the stream live. The
   * last read and going live happen in one synchronous turn, so no event is written between them:
   * an event is either in a page read or pushed later, never both, never neither.
   */
  private async replay(id: string, sink: Sink): Promise<void> {
    for (;;) {
      const page = this.read(sink.seq, sink.queryId, PAGE);
      let paused = false;
      for (const event of page) {
        if (!this.send(id, sink, event)) return;
        if (sink.queued > REPLAY_PACE_BYTES) {
          // The client reads slower than the log replays: wait for it, never buffer the whole log.
          paused = true;
          await sink.last;
          if (this.leases.get(id)?.sink !== sink) return;
        }
      }
      // Live only after a short page read and sent in one turn: nothing written in between is missed.
      if (page.length < PAGE && !paused) {
        sink.live = true;
        return;
      }
      if (!paused) await sink.writer.ready; // a long log never holds the hub for one long turn
      if (this.leases.get(id)?.sink !== sink) return;
    }
  }

  /** Writes one event; false when that ended the stream (a query's last event, or a client too far behind). */
  private send(id: string, sink: Sink, event: HubEvent, frame = frameOf(event)): boolean {
    sink.seq = event.seq;
    if (!this.write(id, sink, frame)) return false;
    if (!sink.queryId || !STOP_TYPES.has(event.type)) return true;
    this.release(id);
    return false;
  }
}

const frameOf = (event: HubEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
