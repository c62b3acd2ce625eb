import { LatticeError } from "./errors.ts";
import type { components } from "./schema.d.ts";

/** A hub event as the contract types it: `data`'s shape follows from `type`. */
export type LatticeEvent = components["schemas"]["Event"];
export type EventType = LatticeEvent["type"];
export type EventOf<T extends EventType> = Extract<LatticeEvent, { type: T }>;

/** A single event's text may be this long; a longer one ends the stream with an error (memory bound). */
const MAX_EVENT_CHARS = 1_000_000;

/**
 * Reads a `text/event-stream` body into events: `data:` lines joined, `id:` kept, comments (the
 * server's `: ping`) skipped. The server's JSON is trusted as Lattice's own contract.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<LatticeEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) yield JSON.parse(data) as LatticeEvent;
      }
      if (buffer.length > MAX_EVENT_CHARS) {
        throw new LatticeError(0, "event_too_large", `an event exceeded ${MAX_EVENT_CHARS} characters`);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
