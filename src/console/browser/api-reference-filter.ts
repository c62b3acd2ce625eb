/**
 * The API reference's filter (/docs): the page is whole without it (server-rendered); with it, a
 * search box hides the operations, and their contents entries, whose text does not hold every word.
 */
import { matchesQuery } from "./api-reference-query.ts";

export function apiReferenceFilter(): void {
  const box = document.querySelector<HTMLElement>(".filter");
  const input = document.querySelector<HTMLInputElement>("#filter");
  const count = document.querySelector<HTMLElement>("#filter-count");
  if (!box || !input || !count) return;
  const ops = [...document.querySelectorAll<HTMLElement>("article.op")];
  box.hidden = false;
  input.addEventListener("input", () => {
    const query = input.value.trim();
    const shown = new Set(
      ops.filter((op) => matchesQuery(op.dataset.search ?? "", query)).map((op) => op.id),
    );
    for (const el of document.querySelectorAll<HTMLElement>("[data-op]")) {
      el.hidden = !shown.has(el.dataset.op ?? "");
    }
    // A group with none of its operations shown goes too, in the contents and on the page.
    for (const el of document.querySelectorAll<HTMLElement>("[data-group]")) {
      el.hidden = !el.querySelector("[data-op]:not([hidden])");
    }
    count.textContent = query ? `${shown.size} of ${ops.length} operations` : "";
  });
}
