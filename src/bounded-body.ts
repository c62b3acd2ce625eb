/**
 * A response body read whole, but never more than `max` bytes of it: a hostile server's answer is
 * cut off (and the stream cancelled) the moment it passes the limit. Shared by every outbound call.
 */
export async function readBounded(response: Response, max: number): Promise<string | "too_large"> {
  if (Number(response.headers.get("Content-Length") ?? "0") > max) {
    await response.body?.cancel();
    return "too_large";
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return "too_large";
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
