/**
 * How soon an event reaches a client: a session's event stream (`GET …/events`, SSE) is held open
 * while queries run; each event's delay is the client's receipt time minus the hub's timestamp of
 * its write (`at`, the same host clock, 1 ms resolution).
 */
import { ask, finish, openSession, type Tenant } from "./client.ts";
import { overheadTag } from "./plans.ts";
import { type Summary, sleep, summarize } from "./stats.ts";

export interface PushResult {
  events: number;
  delayMs: Summary;
}

export async function measurePush(t: Tenant, queries: number): Promise<PushResult> {
  const sid = await openSession(t, "push");
  const delays: number[] = [];
  const abort = new AbortController();
  const res = await fetch(`${t.api}/v1/sessions/${sid}/events`, {
    headers: { Authorization: `Bearer ${t.frontend}`, Accept: "text/event-stream" },
    signal: abort.signal,
  });
  if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
  const reading = (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      const received = Date.now();
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .find((l) => l.startsWith("data: "));
        buffer = buffer.slice(end + 2);
        if (data) delays.push(received - Date.parse((JSON.parse(data.slice(6)) as { at: string }).at));
        end = buffer.indexOf("\n\n");
      }
    }
  })();
  for (let i = 0; i < queries; i++) await finish(t, sid, await ask(t, sid, overheadTag("tool", 1)), 50);
  await sleep(200); // the last events' push
  abort.abort();
  await reading;
  return { events: delays.length, delayMs: summarize(delays) };
}
