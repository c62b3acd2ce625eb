/**
 * A query wherever it is shown: its status, its answer (text as text, an object as key/value lines,
 * a list of objects as a table) with where each value came from, and its consents as dialogs.
 */
import type { Lattice } from "@lattice/client";
import { type Answer, answerShape } from "./answer.ts";
import { renderConsent } from "./consent.ts";
import { clear, el, say, table } from "./dom.ts";
import {
  type Consent,
  type DisplayItem,
  labelWords,
  provenanceWords,
  type Query,
  STATUS,
  writtenBy,
} from "./words.ts";

/** Who sees a query: the person who asked (sources in words), or an admin (its labels too). */
export type Audience = "person" | "admin";

/** The admin view's marks: where the value came from and its label, in words. */
function labelMarks(item: DisplayItem): HTMLElement {
  const list = el(
    "ul",
    { class: "marks", "aria-label": "Where this came from and its label" },
    provenanceWords(item).map((f) => el("li", { class: "mark", text: `from ${f}` })),
  );
  for (const words of labelWords(item.label))
    list.appendChild(el("li", { class: `mark${item.untrusted ? " warn" : ""}`, text: words }));
  return list;
}

/**
 * A value as its owner wrote it: an app's or a model's words boxed and captioned as theirs, never
 * set out as Lattice's own; the person's own words or saved data with a plain "From …" line.
 */
function framed(item: DisplayItem, value: HTMLElement): HTMLElement[] {
  const by = writtenBy(item);
  if (!by.app) return [value, ...(by.text ? [el("p", { class: "source-line", text: by.text })] : [])];
  return [
    el("figure", { class: `app-text${item.untrusted ? " untrusted" : ""}` }, [
      el("figcaption", { text: by.text }),
      el("div", { class: "app-quote" }, [value]),
    ]),
  ];
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

export function renderDisplay(items: DisplayItem[], audience: Audience = "person"): HTMLElement {
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
            text:
              audience === "admin"
                ? `Withheld: its privacy level (${item.label.confidentiality}) is above what the display policy shows.`
                : "Withheld: it is more private than your admin lets this chat show.",
          }),
          ...(audience === "admin" ? [labelMarks(item)] : []),
        ]);
      }
      return el("li", { class: `item${item.untrusted ? " untrusted" : ""}`, "data-key": item.key }, [
        el("h3", { text: title }),
        ...framed(item, answerNode(answerShape(item.value), title)),
        ...(audience === "admin" ? [labelMarks(item)] : []),
      ]);
    }),
  );
}

export interface QueryOptions {
  /** false: the query's consents are not shown (the consent page shows its own). */
  consents?: boolean;
  /** The asker's view (sources in words, no labels) unless an admin's is asked for. */
  audience?: Audience;
  /** The client the consent dialogs answer with. */
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
  target.appendChild(renderDisplay(query.display, opts.audience));
  target.appendChild(
    el("p", {}, [
      el("a", {
        href: `/console/sessions/${sid}/queries/${query.id}`,
        text: "Details: the plan, labels and trace",
      }),
    ]),
  );
}
