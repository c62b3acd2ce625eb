import { LatticeError } from "./errors.ts";
import type { components } from "./schema.d.ts";

/** A hub event as the contract types it: `data`'s shape follows from `type`. */
export type LatticeEvent = components["schemas"]["Event"];
export type EventType = LatticeEvent["type"];
export type EventOf<T extends EventType> = Extract<LatticeEvent, { type: T }>;

/** A single event's text may be this long; a longer one ends the stream with an error (memory bound). */
const MAX_EVENT_CHARS = 1_000_000;

/**
 * Reads a `text/event-stream` body into events: lines may end in LF, CRLF or CR; `data:` lines are
 * joined; other fields and comments (the server's `: ping`) are skipped. A data line that is not
 * JSON ends the stream with a LatticeError.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<LatticeEvent> {
  // As a Uint8Array-to-string transform: the DOM library types its writable side wider (BufferSource).
  const reader = body.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>).getReader();
  let buffer = "";
  let heldCR = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      // A CR at a chunk's end may be half of a CRLF: held back until the next chunk (or the end) says.
      let text: string = (heldCR ? "\r" : "") + (done ? "" : value);
      heldCR = !done && text.endsWith("\r");
      if (heldCR) text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const data = dataOf(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (data) yield parse(data);
      }
      if (done) return;
      if (buffer.length > MAX_EVENT_CHARS) {
        throw new LatticeError(0, "event_too_large", `an event exceeded ${MAX_EVENT_CHARS} characters`);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** An event block's data: its `data:` lines joined (one optional space after the colon dropped). */
const dataOf = (block: string) =>
  block
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
    .join("\n");

function parse(data: string): LatticeEvent {
  try {
    return JSON.parse(data) as LatticeEvent;
  } catch {
    throw new LatticeError(0, "invalid_event", "an event's data is not JSON");
  }
}
