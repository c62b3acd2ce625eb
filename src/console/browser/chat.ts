/**
 * Chat: the session as a transcript. Every query of the session is a turn that stays (a new
 * question is added below the earlier ones); a reload rebuilds the turns from the event stream's
 * replay, which starts at the session's first event. Each turn is re-read when one of its events
 * arrives; the live list says what the latest one is doing, in words.
 */
import type { LatticeEvent } from "@lattice/client";
import { api, call, follow } from "./api.ts";
import { byId, clear, el } from "./dom.ts";
import { describeEvent } from "./event-words.ts";
import { renderQuery } from "./query.ts";
import type { Query } from "./words.ts";

/**
 * Re-reads one query and renders it into its target. Reads are serialised, so an older answer never
 * renders over a newer one: a refresh asked during a read makes one more read after it.
 */
export function refresher(
  target: HTMLElement,
  sid: string,
  qid: string,
  opts: { consents?: boolean; onRead?: (q: Query) => void } = {},
): () => void {
  let busy = false;
  let again = false;
  const read = async () => {
    again = false;
    const r = await call(
      api().api.GET("/v1/sessions/{sid}/queries/{qid}", { params: { path: { sid, qid } } }),
    );
    if (r.ok && r.data) {
      renderQuery(target, sid, r.data, refresh, {
        client: api(),
        ...(opts.consents === false && { consents: false }),
      });
      opts.onRead?.(r.data);
    }
    if (again) setTimeout(() => void read(), 50);
    else busy = false;
  };
  const refresh = () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    setTimeout(() => void read(), 50);
  };
  return refresh;
}

/** A top-level step's title in the query's plan (the planner's, shown quoted by the event's line). */
function planTitle(query: Query | null, key: string): string | null {
  const m = /^steps\[(\d+)\]$/.exec(key);
  const steps = (query?.plan as { steps?: Array<{ title?: unknown }> } | undefined)?.steps;
  const title = m && steps ? steps[Number(m[1])]?.title : undefined;
  return typeof title === "string" && title ? title : null;
}

interface Turn {
  refresh(): void;
  query: Query | null;
}

export async function chatPage(user: string): Promise<void> {
  const transcript = byId("query");
  const events = byId("events");
  const question = byId<HTMLTextAreaElement>("question");
  const turns = new Map<string, Turn>();
  let sid = document.body.dataset.session ?? null;
  let latest: string | null = null;
  let following = false;

  /** The turn of a query, added below the others the first time it is named. */
  function turn(qid: string): Turn {
    const known = turns.get(qid);
    if (known) return known;
    const article = el("article", {
      class: "turn",
      id: `turn-${qid}`,
      "aria-label": "A question and its answer",
    });
    transcript.appendChild(article);
    const t: Turn = { query: null, refresh: () => {} };
    t.refresh = refresher(article, sid!, qid, {
      onRead: (q) => {
        const first = t.query === null;
        t.query = q;
        // A new turn is brought up to the top of the window once it has content, as chats do; the
        // input stays at the bottom (sticky). Later reads never move the page under the reader.
        if (first && transcript.lastElementChild === article) article.scrollIntoView({ block: "start" });
      },
    });
    turns.set(qid, t);
    return t;
  }
  function latestIs(qid: string) {
    if (qid === latest) return;
    latest = qid;
    clear(events);
  }
  function onEvent(e: LatticeEvent) {
    if (e.type === "query_started") latestIs(e.queryId);
    const t = turn(e.queryId);
    if (e.queryId === latest) {
      // A display event comes before the read that shows it: the plan's step names it until then.
      const titleOf = (key: string) =>
        t.query?.display.find((d) => d.key === key)?.title ?? planTitle(t.query, key);
      events.appendChild(el("li", { "data-type": e.type, text: describeEvent(e, { titleOf }) }));
    }
    t.refresh();
  }
  function open() {
    if (following) return;
    following = true;
    follow(api(), sid!, onEvent);
  }
  function failed(text: string) {
    transcript.appendChild(el("p", { class: "error", role: "alert", text }));
  }
  if (sid) open();
  for (const b of document.querySelectorAll<HTMLButtonElement>("button.example")) {
    b.addEventListener("click", () => {
      question.value = b.dataset.question ?? "";
      question.focus();
    });
  }
  byId("ask-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = question.value.trim();
    if (!text) return;
    if (!sid) {
      const s = await call(api().api.POST("/v1/sessions", { body: { userId: user, private: false } }));
      if (!s.ok || !s.data) return failed(s.error);
      sid = s.data.id;
      history.replaceState(null, "", `/console/sessions/${sid}`);
    }
    const q = await call(
      api().api.POST("/v1/sessions/{sid}/queries", { params: { path: { sid } }, body: { text } }),
    );
    if (!q.ok || !q.data) return failed(q.error);
    const qid = (q.data as { id: string }).id;
    question.value = "";
    latestIs(qid);
    turn(qid).refresh();
    open();
  });
}
