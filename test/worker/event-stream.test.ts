/** A session's event stream: the hub pushes each event as it is written, replays after Last-Event-ID. */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HubDO } from "../../src/objects/hub/index.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { HubEvent } from "../../src/runtime/index.ts";
import { api, expectError } from "./helpers.ts";
import {
  answer,
  ask,
  display,
  type HubWorld,
  hubWorld,
  lit,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
  withInvite,
} from "./hub-kit.ts";

/** Reads server-sent events off a response, one at a time. */
class Events {
  private readonly reader: ReadableStreamDefaultReader<string>;
  private buffer = "";

  constructor(response: Response) {
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    this.reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event, or null once the stream has ended. */
  async next(): Promise<HubEvent | null> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = this.buffer.slice(0, end).split("\n");
        this.buffer = this.buffer.slice(end + 2);
        const field = (name: string) => frame.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
        const event = JSON.parse(field("data")!) as HubEvent;
        expect([field("id"), field("event")]).toEqual([String(event.seq), event.type]);
        return event;
      }
      const { value, done } = await this.reader.read();
      if (done) return null;
      this.buffer += value;
    }
  }

  async take(n: number): Promise<HubEvent[]> {
    const events: HubEvent[] = [];
    while (events.length < n) {
      const event = await this.next();
      if (!event) throw new Error(`the stream ended after ${events.length} of ${n} events`);
      events.push(event);
    }
    return events;
  }

  async until(type: string): Promise<HubEvent[]> {
    const events: HubEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) {
      events.push(event);
      if (event.type === type) return events;
    }
    throw new Error(`the stream ended before ${type}: ${events.map((e) => e.type).join(", ")}`);
  }

  close(): Promise<void> {
    return this.reader.cancel();
  }
}

async function openEvents(w: HubWorld, sid: string, lastEventId?: number): Promise<Events> {
  const headers: Record<string, string> =
    lastEventId === undefined ? {} : { "Last-Event-ID": String(lastEventId) };
  const res = await api("GET", `/v1/sessions/${sid}/events`, { key: w.frontend, stream: true, headers });
  expect(res.status).toBe(200);
  return new Events(res.response);
}

/** The session's hub; a fresh stub each time, as one used across an eviction is broken. */
const hubOf = (w: HubWorld, sid: string) => env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
const hub = (w: HubWorld, sid: string) => rpc<HubDO>(hubOf(w, sid));

/** Writes one event (a query_started), without planning: a query stepped by hand never runs alone. */
async function emit(w: HubWorld, sid: string, text = "noted"): Promise<void> {
  expect((await hub(w, sid).startQuery(text, null, { stepping: "manual" })).ok).toBe(true);
}

const seqs = (events: HubEvent[]) => events.map((e) => e.seq);

describe("event streams", () => {
  it("cut off a client that reads more than 256 KB behind, freeing its place (it resumes with Last-Event-ID)", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    const stalled = await openEvents(w, sid); // opened, never read while the events are written
    for (let i = 0; i < 40; i++) await emit(w, sid, `${i} ${"x".repeat(8000)}`);
    // Its place is free again: the session's four places all open.
    const others = await Promise.all(Array.from({ length: 4 }, () => openEvents(w, sid)));
    await Promise.all(others.map((e) => e.close()));
    // And it ends short of the 40 events: what it missed is in the log, for Last-Event-ID.
    const got: HubEvent[] = [];
    try {
      for (let e = await stalled.next(); e; e = await stalled.next()) got.push(e);
    } catch {
      // an aborted stream may end in an error rather than a clean end
    }
    expect(got.length).toBeLessThan(40);
    const resumed = await openEvents(w, sid, got.at(-1)?.seq ?? 0);
    expect((await resumed.take(40 - got.length)).at(-1)!.data).toMatchObject({
      text: expect.stringMatching(/^39 /),
    });
    await resumed.close();
  });

  it("push an event written by an answered consent to an open stream", async () => {
    const w = await hubWorld(["contacts", "calendar"], withInvite());
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("c", "contacts.lookup", { name: lit("landlord") }),
            tool("ev", "calendar.create_event", {
              title: lit("Flat viewing"),
              date: lit("2026-10-05"),
              participants: { arr: [ref("c", "email")] },
            }),
            display(ref("ev")),
          ],
        },
      },
    ]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, "Invite my landlord to a Flat viewing on 2026-10-05");
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    const events = await openEvents(w, sid);
    const asked = (await events.until("consent_requested")).at(-1)!;
    // The stream is open and idle; the answer writes the next event, and the hub pushes it.
    const [consent] = await pendingConsents(w, sid);
    expect((await answer(w, sid, consent!.id, { decision: "allow" })).status).toBe(200);
    const answered = await events.next();
    expect(answered).toMatchObject({
      queryId: qid,
      type: "consent_answered",
      data: { consentId: consent!.id },
    });
    expect(answered!.seq).toBe(asked.seq + 1);
    const rest = await events.until("query_finished");
    expect(rest.at(-1)!.data).toEqual({ status: "completed" });
    expect([asked, answered!, ...rest]).toEqual(await hub(w, sid).events(asked.seq - 1));
    await events.close();
  });

  it("resume with Last-Event-ID after a close, across an eviction, with exactly the missed events", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    const first = await openEvents(w, sid);
    for (let i = 0; i < 3; i++) await emit(w, sid, `seen ${i}`);
    const seen = await first.take(3);
    await first.close();
    await emit(w, sid, "missed 0");
    await emit(w, sid, "missed 1");
    await evictDurableObject(hubOf(w, sid)); // the closed stream left nothing in flight to drain
    await emit(w, sid, "missed 2");
    const last = seen.at(-1)!.seq;
    const again = await openEvents(w, sid, last);
    const missed = await again.take(3);
    expect(missed).toEqual(await hub(w, sid).events(last));
    expect(missed.map((e) => e.data.text)).toEqual(["missed 0", "missed 1", "missed 2"]);
    // Then live, and nothing was sent twice: the next event is the next one written.
    await emit(w, sid, "live");
    expect(await again.next()).toMatchObject({ seq: missed.at(-1)!.seq + 1, data: { text: "live" } });
    await again.close();
  });

  it("end when the hub is evicted from under them; the client resumes where it was", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    const events = await openEvents(w, sid);
    await emit(w, sid, "before");
    const [before] = await events.take(1);
    // evictDurableObject waits for open streams to drain; an abort ends the instance as an
    // eviction by the platform would, with the streams still open.
    await runInDurableObject(hubOf(w, sid), (_, state) => state.abort("evicted")).catch(() => {});
    expect(await events.next()).toBeNull();
    await emit(w, sid, "after");
    const resumed = await openEvents(w, sid, before!.seq);
    expect(await resumed.next()).toMatchObject({ seq: before!.seq + 1, data: { text: "after" } });
    await resumed.close();
  });

  it("replay a long log page by page, then go live, with no gap and no duplicate while events are written", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    for (let i = 0; i < 230; i++) await emit(w, sid, `old ${i}`);
    const events = await openEvents(w, sid, 0);
    // Written while the replay is under way: each lands in a page read or is pushed, exactly once.
    const writing = (async () => {
      for (let i = 0; i < 30; i++) await emit(w, sid, `new ${i}`);
    })();
    const got = await events.take(260);
    await writing;
    expect(seqs(got)).toEqual(Array.from({ length: 260 }, (_, i) => got[0]!.seq + i));
    expect(got.map((e) => e.data.text)).toEqual([
      ...Array.from({ length: 230 }, (_, i) => `old ${i}`),
      ...Array.from({ length: 30 }, (_, i) => `new ${i}`),
    ]);
    await events.close();
  });

  it("open on a lease taken before an eviction, under the same lease, which closing frees", async () => {
    const w = await hubWorld([]);
    const sid = await openSession(w);
    const lease = (await hub(w, sid).openStream(4, 60_000))!;
    await evictDurableObject(hubOf(w, sid)); // as between the ask route's lease and its query
    const body = await hub(w, sid).eventStream(lease, { after: 0, max: 4, maxMs: 60_000 });
    expect(body).not.toBeNull();
    const others = await Promise.all([1, 2, 3].map(() => hub(w, sid).openStream(4, 60_000)));
    expect(others.every(Boolean)).toBe(true);
    expect(await hub(w, sid).openStream(4, 60_000)).toBeNull();
    await hub(w, sid).closeStream(lease);
    expect(await body!.getReader().read()).toMatchObject({ done: true });
    expect(await hub(w, sid).openStream(4, 60_000)).not.toBeNull();
  });

  it("are at most four per session: the fifth is refused, before its query starts", async () => {
    const w = await hubWorld(["contacts"]);
    await script(w.models.planner, [{ respond: { steps: [display(lit("hello"))] } }]);
    const sid = await openSession(w);
    const open = await Promise.all([1, 2, 3, 4].map(() => openEvents(w, sid)));
    expectError(
      await api("GET", `/v1/sessions/${sid}/events`, { key: w.frontend, stream: true }),
      429,
      "too_many_streams",
    );
    const streamed = (text: string) =>
      api("POST", `/v1/sessions/${sid}/queries`, {
        key: w.frontend,
        body: { text },
        headers: { Accept: "text/event-stream" },
        stream: true,
      });
    expectError(await streamed("refused"), 429, "too_many_streams");
    expect((await hub(w, sid).events(0)).filter((e) => e.type === "query_started")).toEqual([]);

    // A query's stream ends after its last event, and frees its place for the next stream.
    await open[0]!.close();
    const res = await streamed("say hello");
    expect(res.status).toBe(200);
    const query = new Events(res.response);
    expect((await query.until("query_finished"))[0]!.type).toBe("query_started");
    expect(await query.next()).toBeNull();
    const fifth = await openEvents(w, sid);
    for (const events of [...open.slice(1), fifth]) await events.close();
  });
});
