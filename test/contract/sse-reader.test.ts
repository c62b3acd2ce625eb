import { describe, expect, it } from "vitest";
import { LatticeError, readEvents } from "../../clients/typescript/src/index.ts";

const event = (seq: number) => JSON.stringify({ seq, queryId: "q_1", type: "planning", data: {}, at: "" });

/** A body delivered one character per chunk, so every line ending can fall across a chunk boundary. */
function body(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const ch of text) c.enqueue(new TextEncoder().encode(ch));
      c.close();
    },
  });
}
async function seqs(text: string): Promise<number[]> {
  const got: number[] = [];
  for await (const e of readEvents(body(text))) got.push(e.seq);
  return got;
}

describe("the typed client's event reader", () => {
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("reads events with %s line endings, skipping comments and other fields", async (_, nl) => {
    const text = `: ping${nl}${nl}id: 1${nl}event: planning${nl}data: ${event(1)}${nl}${nl}data:${event(2)}${nl}${nl}`;
    expect(await seqs(text)).toEqual([1, 2]);
  });

  it("joins multi-line data", async () => {
    // One event's JSON over several data lines (joined with newlines, as the SSE spec says).
    const pretty = JSON.stringify(JSON.parse(event(4)), null, 1).split("\n");
    expect(await seqs(`${pretty.map((l) => `data: ${l}`).join("\n")}\n\n`)).toEqual([4]);
  });

  it("throws LatticeError for data that is not JSON", async () => {
    const err = await seqs("data: {nope\n\n").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatticeError);
    expect(err).toMatchObject({ code: "invalid_event" });
  });
});
