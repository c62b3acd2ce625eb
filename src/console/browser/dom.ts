/**
 * The console's only way to make DOM: elements with attributes and text nodes. Strings become text
 * (textContent, createTextNode), never markup: app and model text is never parsed as HTML.
 */
export type Attr = string | number | boolean | null | undefined | ((event: Event) => void);
export type Kid = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  children: Kid[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (typeof v === "function") node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export function clear<T extends Node>(node: T): T {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** An element the page shell always has (a missing one is a bug in the shell, said so). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** A table with a header row; each row's first cell is its row header. */
export function table(columns: string[], rows: Kid[][], attrs: Record<string, Attr> = {}): HTMLTableElement {
  return el("table", attrs, [
    el("thead", {}, [
      el(
        "tr",
        {},
        columns.map((h) => el("th", { scope: "col", text: h })),
      ),
    ]),
    el(
      "tbody",
      {},
      rows.map((r) =>
        el(
          "tr",
          {},
          r.map((c, i) => (c instanceof HTMLTableCellElement ? c : cell(c, i === 0))),
        ),
      ),
    ),
  ]);
}

function cell(content: Kid, header: boolean): HTMLTableCellElement {
  return header ? el("th", { scope: "row" }, [content]) : el("td", {}, [content]);
}

/** Says something to screen readers in the page's one live region (created once, in the shell). */
export function say(text: string): void {
  const live = byId("live");
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text;
  }, 50);
}

/** Moves focus to the page's heading, so a keyboard user starts from the top of what changed. */
export function focusMain(): void {
  document.querySelector<HTMLElement>("main h1")?.focus();
}
