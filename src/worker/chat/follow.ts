import { type EventSourceMessage, EventSourceParserStream } from "eventsource-parser/stream";
import * as z from "zod";
import { decode } from "../../decode.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { type HubEvent, HubEventTypeSchema } from "../../runtime/index.ts";
import { ApiError } from "../errors.ts";
import { MAX_STREAMS_PER_SESSION } from "../routes/sessions.ts";
import { isFinal, pendingConsents } from "./render.ts";

/** How long one chat turn follows its query; past it, the turn says the request is still going. */
const TURN_TIMEOUT_MS = 60_000;
/** An event as the hub's stream sends it (its `data:` line), read back through a schema, never cast. */
const StreamedEvent = z.object({
  seq: z.number(),
  queryId: z.string(),
  type: HubEventTypeSchema,
  data: z.record(z.string(), z.unknown()),
  at: z.string(),
});

/** Between reads while no stream can be had (the session's stream places are all taken). */
const NO_STREAM_WAIT_MS = 500;

/** A query stops a chat turn when it ends or asks the user (a spoke's request asks while running). */
const stopsTurn = (query: QueryView) => isFinal(query.status) || pendingConsents(query).length > 0;

/** The query as it is now; one the hub does not know is a 404. */
export async function readQuery(hub: Rpc<HubDO>, qid: string): Promise<QueryView> {
  const query = await hub.query(qid);
  if (!query) throw new ApiError(404, "query_not_found", { message: "query not found" });
  return query;
}

/**
 * The query's events after `after`, each as the hub writes it, until the query stops the turn or
 * TURN_TIMEOUT_MS passes; returns the query as it then is. It follows the hub's own event stream
 * (the one `POST …/queries` with `Accept: text/event-stream` relays), so a step is seen the moment
 * it is written and a slow app costs no reads. That stream ends at the query's `consent_requested`
 * or `query_finished`; the query is read then, and an end that did not stop the turn (a consent
 * answered before this turn, an evicted hub) is followed on from the last event seen. Every event
 * after `after` is yielded once, in order, even one the stream missed (from the query's trace).
 */
export async function* follow(
  hub: Rpc<HubDO>,
  qid: string,
  after = 0,
  signal?: AbortSignal,
): AsyncGenerator<HubEvent, QueryView> {
  const deadline = Date.now() + TURN_TIMEOUT_MS;
  let cursor = after;
  for (;;) {
    // Read first: a query that already waits (a consent asked before this turn) has no event to come.
    const query = await readQuery(hub, qid);
    for (const event of query.trace) {
      if (event.seq <= cursor) continue;
      cursor = event.seq;
      yield event;
    }
    const left = deadline - Date.now();
    if (stopsTurn(query) || left <= 0 || signal?.aborted) return query;
    let streamed = false;
    for await (const event of hubEvents(hub, qid, cursor, left, signal)) {
      streamed = true;
      if (event.seq <= cursor) continue;
      cursor = event.seq;
      yield event;
    }
    if (!streamed) await new Promise((resolve) => setTimeout(resolve, NO_STREAM_WAIT_MS));
  }
}

/** The query once it stops the turn (or at the deadline), its events passed over. */
export async function settle(hub: Rpc<HubDO>, qid: string): Promise<QueryView> {
  const events = follow(hub, qid);
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}

/**
 * One of the hub's streams of the query's events after `after`, for at most `maxMs`, parsed; empty
 * when the session has no stream place free. Ending early (the client went away: `signal`) frees
 * the place first, so the hub closes its side and stops writing, and only then is the reader let go: a
 * cancelled reader with the hub still writing is what workerd reports as an aborted pipe.
 */
async function* hubEvents(
  hub: Rpc<HubDO>,
  qid: string,
  after: number,
  maxMs: number,
  signal?: AbortSignal,
): AsyncGenerator<HubEvent> {
  if (signal?.aborted) return;
  const lease = await hub.openStream(MAX_STREAMS_PER_SESSION, maxMs + 10_000);
  if (!lease) return;
  let reader: ReadableStreamDefaultReader<EventSourceMessage> | undefined;
  // The client went away: the hub ends its side, which ends the read this generator waits in.
  const free = () => void hub.closeStream(lease).catch(() => {});
  signal?.addEventListener("abort", free);
  try {
    const opts = { after, queryId: qid, max: MAX_STREAMS_PER_SESSION, maxMs };
    const body = await hub.eventStream(lease, opts);
    if (!body) return;
    reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      // The hub's stream breaking off (evicted) ends this one like its own end: the caller reads on.
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) return;
      yield decode(StreamedEvent, next.value.data, "a hub event");
    }
  } finally {
    signal?.removeEventListener("abort", free);
    await hub.closeStream(lease).catch(() => {});
    await reader?.cancel().catch(() => {});
  }
}

/** Remembers an open query for the next turn, or forgets it once the turn has shown how it ended. */
export async function recordTurn(hub: Rpc<HubDO>, query: QueryView): Promise<void> {
  if (isFinal(query.status)) await hub.settleTurn(query.id);
  else await hub.oweTurn(query.id);
}

/** The query an earlier turn left open, unless it has been reported since (or is gone). */
export async function owedQuery(hub: Rpc<HubDO>): Promise<QueryView | null> {
  const qid = await hub.owedTurn();
  if (!qid) return null;
  return readQuery(hub, qid).catch(() => null);
}
