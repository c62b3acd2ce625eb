/**
 * Server-sent event frames out of a text buffer: each complete frame's `id` and joined `data`, and
 * what is left for the next chunk. Lines may end in LF, CRLF or CR.
 */
export interface Frame {
  id: number | null;
  data: string;
}

export function takeFrames(buffer: string): { frames: Frame[]; rest: string } {
  const text = buffer.replace(/\r\n?/g, "\n");
  const frames: Frame[] = [];
  let rest = text;
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const lines = rest.slice(0, end).split("\n");
    rest = rest.slice(end + 2);
    const idLine = lines.find((l) => l.startsWith("id:"));
    const id = idLine === undefined ? null : Number(idLine.slice(3).trim());
    const data = lines
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(l.startsWith("data: ") ? 6 : 5))
      .join("\n");
    frames.push({ id: id !== null && Number.isFinite(id) ? id : null, data });
  }
  return { frames, rest };
}
