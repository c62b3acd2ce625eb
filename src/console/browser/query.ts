/**
 * A query wherever it is shown: its status, its answer (text as text, an object as key/value lines,
 * a list of objects as a table) with where each value came from, and its consents as dialogs.
 */
import type { Lattice } from "@lattice/client";
import { type Answer, answerShape } from "./answer.ts";
import { renderConsent } from "./consent.ts";
import { clear, el, say, table } from "./dom.ts";
import { type Consent, type DisplayItem, provenanceWords, type Query, STATUS } from "./words.ts";

/** Where a value came from, as marks: its sources, whether it is untrusted, its label. */
function marks(item: DisplayItem): HTMLElement {
  const list = el(
    "ul",
    { class: "marks", "aria-label": "Where this came from" },
    provenanceWords(item).map((f) => el("li", { class: "mark", text: `from ${f}` })),
  );
  if (item.untrusted)
    list.appendChild(el("li", { class: "mark warn", text: "untrusted content (not checked)" }));
  list.appendChild(
    el("li", { class: "mark", text: `label ${item.label.confidentiality} / ${item.label.integrity}` }),
  );
  return list;
}

/** An answer laid out; every string in it is a text node. */
export function answerNode(shape: Answer, caption: string): HTMLElement {
  switch (shape.kind) {
    case "text":
      return el("p", { class: "value text" }, [shape.text]);
    case "list":
      return el(
        "ul",
        { class: "value list" },
        shape.items.map((t) => el("li", { text: t })),
      );
    case "fields":
      return el(
        "dl",
        { class: "value fields" },
        shape.rows.flatMap((r) => [el("dt", { text: r.key }), el("dd", { text: r.text })]),
      );
    case "table": {
      const t = table(shape.columns, shape.rows, { class: "value rows" });
      t.insertBefore(el("caption", { class: "visually-hidden", text: caption }), t.firstChild);
      return t;
    }
  }
}

export function renderDisplay(items: DisplayItem[]): HTMLElement {
  if (!items.length) return el("p", { class: "display", text: "Nothing to show yet." });
  return el(
    "ul",
    { class: "display" },
    items.map((item) => {
      const title = item.title ?? item.key;
      if (item.redacted) {
        return el("li", { class: "item redacted", "data-key": item.key }, [
          el("h3", { text: title }),
          el("p", {
            class: "withheld",
            text: `Withheld: its label (${item.label.confidentiality}) is above what the display policy shows.`,
          }),
          marks(item),
        ]);
      }
      return el("li", { class: `item${item.untrusted ? " untrusted" : ""}`, "data-key": item.key }, [
        el("h3", { text: title }),
        answerNode(answerShape(item.value), title),
        marks(item),
      ]);
    }),
  );
}

export interface QueryOptions {
  /** false: the query's consents are not shown (the consent page shows its own). */
  consents?: boolean;
  /** Where "See the plan" and answers go; the chat names its session. */
  client: Lattice;
}

/**
 * The whole query: the question, status, error, consents (pending ones answerable) and answer. A
 * pending consent's dialog is kept across re-renders while it stays pending, so the choices made in
 * it (scope, app) and its focus survive the events that arrive meanwhile.
 */
export function renderQuery(
  target: HTMLElement,
  sid: string,
  query: Query,
  onChange: () => void,
  opts: QueryOptions,
): void {
  const kept = new Map<string, Element>();
  for (const n of target.querySelectorAll("section.consent.pending")) kept.set(n.id, n);
  // Each event re-renders the query: whatever else had focus in it gets it back (by id).
  const active = document.activeElement;
  const keep = active && target.contains(active) ? active.id : "";
  if (keep) {
    setTimeout(() => {
      const n = document.getElementById(keep);
      if (n && n !== document.activeElement) n.focus();
    }, 0);
  }
  const before = target.dataset.status;
  clear(target);
  target.dataset.status = query.status;
  target.appendChild(el("p", { class: "query-text" }, ["You asked: ", el("q", { text: query.text })]));
  const status = `Status: ${STATUS[query.status] ?? query.status}`;
  target.appendChild(el("p", { class: `status status-${query.status}`, text: status }));
  if (before !== query.status) say(status);
  if (query.error) {
    target.appendChild(
      el("p", { class: "error", role: "alert", text: `${query.error.message} (${query.error.code})` }),
    );
  }
  if (opts.consents !== false) {
    for (const c of query.consents as Consent[]) {
      const old = c.status === "pending" ? kept.get(`consent-${c.id}`) : undefined;
      target.appendChild(old ?? renderConsent(opts.client, sid, c, onChange));
    }
  }
  target.appendChild(renderDisplay(query.display));
  target.appendChild(
    el("p", {}, [
      el("a", { href: `/console/sessions/${sid}/queries/${query.id}`, text: "See the plan and its trace" }),
    ]),
  );
}
