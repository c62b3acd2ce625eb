import createClient from "openapi-fetch";
import { LatticeError } from "./errors.ts";
import { readEvents } from "./events.ts";
import type { components, paths } from "./schema.d.ts";

export { LatticeError } from "./errors.ts";
export type { EventOf, EventType, LatticeEvent } from "./events.ts";
export { readEvents } from "./events.ts";
export type { components, paths } from "./schema.d.ts";

export type Session = components["schemas"]["Session"];
export type Query = components["schemas"]["Query"];
export type Consent = components["schemas"]["Consent"];
export type ConsentAnswer = components["schemas"]["ConsentAnswer"];

export interface LatticeOptions {
  /** The API's origin, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** A tenant key (`lk.…`) or a user token. */
  key: string;
  fetch?: typeof fetch;
}

const FINAL = new Set<Query["status"]>(["completed", "failed", "rejected"]);

/**
 * Lattice's REST API, typed from its OpenAPI document (`api` is the openapi-fetch client for every
 * route), with the frontend's common flows on top: open a session, ask, wait, answer consents.
 */
export function createLattice(options: LatticeOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.key}` },
    ...(options.fetch && { fetch: options.fetch }),
  });
  /** The data of a call, or its API error thrown. */
  const ok = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
    const { data, error, response } = await call;
    if (error !== undefined || data === undefined) throw await LatticeError.from(response, error);
    return data;
  };

  async function* events(sid: string, opts: { lastEventId?: number; signal?: AbortSignal } = {}) {
    const { data, error, response } = await api.GET("/v1/sessions/{sid}/events", {
      params: { path: { sid } },
      headers: opts.lastEventId ? { "Last-Event-ID": String(opts.lastEventId) } : {},
      parseAs: "stream",
      ...(opts.signal && { signal: opts.signal }),
    });
    if (error !== undefined || !data) throw await LatticeError.from(response, error);
    yield* readEvents(data as ReadableStream<Uint8Array>);
  }

  const flows = {
    api,
    /** The session's events, live (resume after `lastEventId`). */
    events,
    openSession: (userId: string, opts: { private?: boolean; roles?: string[] } = {}) =>
      ok(
        api.POST("/v1/sessions", {
          body: { userId, private: opts.private ?? false, ...(opts.roles && { roles: opts.roles }) },
        }),
      ),
    /**
     * Starts a query (202: without `Accept: text/event-stream` the answer is the query, never a stream).
     * `apps` passes the user's own picks, e.g. `{ "ride.book": "swiftride" }`: the query's words never pick one.
     */
    ask: async (
      sid: string,
      text: string,
      idempotencyKey?: string,
      apps?: Record<string, string>,
    ): Promise<Query> =>
      (await ok(
        api.POST("/v1/sessions/{sid}/queries", {
          params: { path: { sid }, header: idempotencyKey ? { "idempotency-key": idempotencyKey } : {} },
          body: { text, ...(apps && { apps }) },
        }),
      )) as Query,
    query: (sid: string, qid: string) =>
      ok(api.GET("/v1/sessions/{sid}/queries/{qid}", { params: { path: { sid, qid } } })),
    pendingConsents: async (sid: string) =>
      (
        await ok(
          api.GET("/v1/sessions/{sid}/consents", { params: { path: { sid }, query: { status: "pending" } } }),
        )
      ).consents,
    answer: (sid: string, cid: string, answer: ConsentAnswer) =>
      ok(api.POST("/v1/sessions/{sid}/consents/{cid}", { params: { path: { sid, cid } }, body: answer })),

    /**
     * Until the query finishes or waits on a consent (a spoke's request asks while the query runs),
     * following the session's events (no polling); at the deadline, the query as it is.
     */
    async waitFor(sid: string, qid: string, timeoutMs = 120_000): Promise<Query> {
      const deadline = Date.now() + timeoutMs;
      let after = 0;
      for (;;) {
        const query = await flows.query(sid, qid);
        if (FINAL.has(query.status) || (await waiting(sid, qid)) || Date.now() > deadline) return query;
        after = query.trace.reduce((max, e) => Math.max(max, e.seq), after);
        const stop = new AbortController();
        const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
        try {
          for await (const event of events(sid, { lastEventId: after, signal: stop.signal })) {
            after = event.seq;
            if (event.queryId !== qid) continue;
            if (event.type === "query_finished" || event.type === "consent_requested") break;
          }
        } catch (err) {
          if (!stop.signal.aborted) throw err;
        } finally {
          clearTimeout(timer);
          stop.abort();
        }
      }
    },

    /**
     * Asks and sees the query through: each consent it asks is put to `decide` (your UI, showing the
     * consent's data and the hub's assessment) and answered; returns the query once it ends, or as it
     * is after `timeoutMs` in all.
     */
    async askAndWait(
      sid: string,
      text: string,
      decide: (consent: Consent) => Promise<ConsentAnswer> | ConsentAnswer,
      timeoutMs = 120_000,
    ): Promise<Query> {
      const deadline = Date.now() + timeoutMs;
      const started = await flows.ask(sid, text);
      for (;;) {
        const query = await flows.waitFor(sid, started.id, Math.max(0, deadline - Date.now()));
        const asked = (await flows.pendingConsents(sid)).filter((c) => c.queryId === started.id);
        if (!asked.length || Date.now() > deadline) return query;
        for (const consent of asked) await flows.answer(sid, consent.id, await decide(consent));
      }
    },
  };

  /** Whether the query still has a consent unanswered (else it is about to run on). */
  async function waiting(sid: string, qid: string): Promise<boolean> {
    return (await flows.pendingConsents(sid)).some((c) => c.queryId === qid);
  }

  return flows;
}

export type Lattice = ReturnType<typeof createLattice>;
