/**
 * Admin: the audit log, newest first, a page at a time, each row a one-line summary with its detail
 * one click away; filtered by type and by a time or an event's #.
 */

import { prettyText } from "./answer.ts";
import { api, call } from "./api.ts";
import { auditSummary } from "./audit-summary.ts";
import { byId, clear, el, say } from "./dom.ts";

const PAGE = 50;

export async function auditPage(): Promise<void> {
  const target = byId("audit");
  let rows: HTMLTableSectionElement | null = null;
  let oldest: number | null = null;
  const row = (e: { seq: number; at: string; type: string; detail: Record<string, unknown> }) =>
    el("tr", {}, [
      el("td", { text: e.seq }),
      el("td", {}, [el("time", { datetime: e.at, text: e.at.replace("T", " ").slice(0, 19) })]),
      el("th", { scope: "row", text: e.type }),
      el("td", {}, [
        el("p", { class: "summary", text: auditSummary(e) }),
        el("details", {}, [
          el("summary", { text: "Detail" }),
          el("pre", { class: "value", text: prettyText(e.detail) }),
        ]),
      ]),
    ]);
  /** One page newest first from the API (before the last page's oldest seq); the time filter is applied here. */
  const page = async (fresh: boolean): Promise<void> => {
    const since = byId<HTMLInputElement>("audit-since").value.trim();
    const type = byId<HTMLInputElement>("audit-type").value.trim().toLowerCase();
    const r = await call(
      api().api.GET("/v1/admin/audit", {
        params: {
          query: {
            order: "desc",
            limit: PAGE,
            ...(type && { type }),
            ...(!fresh && oldest !== null && { before: oldest }),
          },
        },
      }),
    );
    if (!r.ok || !r.data) {
      clear(target).appendChild(el("p", { class: "error", role: "alert", text: r.error }));
      return;
    }
    let events = r.data.events;
    let done = events.length < PAGE;
    const last = events.at(-1);
    if (last) oldest = last.seq;
    // "Since" is a seq or a time: the newest-first pages stop at it.
    const stop = since
      ? /^\d+$/.test(since)
        ? (e: { seq: number }) => e.seq <= Number(since)
        : (e: { at: string }) => e.at <= since
      : null;
    if (stop && events.some(stop)) {
      events = events.filter((e) => !stop(e));
      done = true;
    }
    if (fresh || !rows) {
      rows = el("tbody");
      clear(target).appendChild(
        el("table", {}, [
          el("thead", {}, [
            el(
              "tr",
              {},
              ["#", "Time (UTC)", "Type", "Summary"].map((h) => el("th", { scope: "col", text: h })),
            ),
          ]),
          rows,
        ]),
      );
      target.appendChild(
        el("button", {
          type: "button",
          id: "audit-more",
          onclick: () => void page(false),
          text: "Show older events",
        }),
      );
    }
    for (const e of events) rows.appendChild(row(e));
    byId("audit-more").hidden = done;
    const count = rows.children.length;
    byId("audit-count").textContent =
      `${count} event(s) shown, newest first${done ? "." : `; ${PAGE} more at a time on request.`}`;
    say(byId("audit-count").textContent ?? "");
  };
  byId("audit-form").addEventListener("submit", (e) => {
    e.preventDefault();
    oldest = null;
    void page(true);
  });
  await page(true);
}
