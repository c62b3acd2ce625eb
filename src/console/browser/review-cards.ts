/**
 * Review cards (issue #33): one card per functionality of a version, in a grid that wraps. Its
 * header says what changed and what Lattice makes of it (binding, irreversibility, destinations);
 * changed fields are shown before and after; unchanged ones are folded. Text the app wrote is
 * boxed as the app's words, as text, never markup. An unbound functionality can get a catalog
 * entry from a proposal, described by the admin, and be bound to it, with no developer involved.
 */
import { api, call } from "./api.ts";
import { el } from "./dom.ts";
import {
  type CardField,
  chips,
  type DiscoveredRow,
  destinationWords,
  entryFromProposal,
  type ReviewCard,
  splitFields,
} from "./review-model.ts";

type Field = CardField;

/** A value as the app wrote it (boxed, quoted) or as Lattice states it (plain). */
function value(field: Field, text: string | null): HTMLElement {
  if (text === null) return el("p", { class: "absent", text: "(absent)" });
  const body = el("pre", { class: "card-value", text });
  if (!field.appText) return body;
  return el("figure", { class: "app-text" }, [
    el("figcaption", { text: "the app's words" }),
    el("div", { class: "app-quote" }, [body]),
  ]);
}

function changedField(f: Field): HTMLElement {
  return el("div", { class: "card-change" }, [
    el("h5", { text: f.field }),
    el("div", { class: "before-after" }, [
      el("div", { class: "before" }, [el("p", { class: "side", text: "Approved" }), value(f, f.before)]),
      el("div", { class: "after" }, [el("p", { class: "side", text: "This version" }), value(f, f.after)]),
    ]),
  ]);
}

export interface CardControls {
  /** The binding control (a select for a pending version), or null. */
  binding?: HTMLElement | null;
  /** The destinations confirmation (for a pending version), or null. */
  confirm?: HTMLElement | null;
  /** The "Propose entry" action for an unbound functionality, or null. */
  propose?: HTMLElement | null;
}

/** One functionality's card; `id` is unique on the page. */
export function reviewCard(id: string, card: ReviewCard, controls: CardControls = {}): HTMLElement {
  const { changed, same } = splitFields(card);
  const title = `${id}-title`;
  return el("article", { class: `fn-card status-${card.status}`, "aria-labelledby": title }, [
    el("h4", { id: title, class: "card-name" }, [
      card.name,
      card.tool && card.tool !== card.name
        ? el("span", { class: "tool-name", text: ` (MCP tool ${card.tool})` })
        : null,
    ]),
    el(
      "ul",
      { class: "chips", "aria-label": "Summary" },
      chips(card).map((c) => el("li", { class: `chip chip-${c.tone}`, text: c.text })),
    ),
    el("p", { class: "card-dest" }, [
      el("strong", { text: "Destinations: " }),
      destinationWords(card.destinations),
    ]),
    controls.confirm ?? null,
    ...changed.map(changedField),
    same.length
      ? el("details", { class: "card-same" }, [
          el("summary", {
            text:
              card.status === "new" || card.status === "removed"
                ? `Its ${same.length} fields`
                : `${same.length} unchanged fields`,
          }),
          ...same.map((f) =>
            el("div", { class: "card-field" }, [el("h5", { text: f.field }), value(f, f.after ?? f.before)]),
          ),
        ])
      : null,
    controls.binding ?? null,
    controls.propose ?? null,
  ]);
}

/**
 * The sign-in a version will use, as discovered at registration: the URLs and client id the app's
 * server pointed to, boxed as its words and shown as text (code), never as links to follow.
 */
export function discoveredBlock(id: string, rows: DiscoveredRow[]): HTMLElement {
  const title = `${id}-oauth-title`;
  return el("section", { class: "oauth-discovered", "aria-labelledby": title }, [
    el("h4", { id: title, text: "Users sign in to it here (discovered at registration)" }),
    el("p", {
      class: "hint",
      text: "Lattice found these through the MCP server's metadata and registered its client there. Each user's sign-in and tokens go to these addresses only.",
    }),
    el("figure", { class: "app-text" }, [
      el("figcaption", { text: "what the app's server pointed to" }),
      el(
        "dl",
        { class: "app-quote" },
        rows.flatMap((r) => [el("dt", { text: r.term }), el("dd", {}, [el("code", { text: r.value })])]),
      ),
    ]),
  ]);
}

/** The cards' grid, labelled for the version it reviews. */
export function cardGrid(label: string, cards: HTMLElement[]): HTMLElement {
  return el("div", { class: "card-grid", role: "group", "aria-label": label }, cards);
}

/**
 * "Propose entry": fetches the proposal for `functionality`, asks the admin to name and describe
 * it (the app's description is never offered), creates the entry, then hands its name to `done`
 * (which binds it, or selects it for the approval). A small secondary button, not a form per card:
 * a 13-tool server's review would otherwise be a wall of forms. When existing entries fit
 * (`fits`), it is the second choice after binding to one, and says so: "Propose a new entry".
 */
export function proposeButton(
  id: string,
  appId: string,
  version: number,
  functionality: string,
  fits: boolean,
  done: (entry: string) => Promise<string | null>,
): HTMLElement {
  const box = el("div", { class: "propose" });
  const status = el("p", { class: "propose-status", role: "alert" });
  const open = async () => {
    button.disabled = true;
    const r = await call(
      api().api.GET("/v1/admin/apps/{appId}/versions/{v}/proposals", {
        params: { path: { appId, v: version } },
      }),
    );
    const proposal = r.data?.proposals.find((p) => p.functionality === functionality);
    if (!r.ok || !proposal) {
      status.textContent = r.ok ? "No proposal: it is bound already." : r.error;
      button.disabled = false;
      return;
    }
    const nameId = `${id}-entry-name`;
    const descId = `${id}-entry-desc`;
    const name = el("input", { id: nameId, type: "text", value: proposal.entry.name, required: true });
    const desc = el("textarea", {
      id: descId,
      rows: 3,
      required: true,
      "aria-describedby": `${descId}-hint`,
    });
    const create = async () => {
      const made = entryFromProposal(proposal, name.value, desc.value);
      if (!made.ok) {
        status.textContent = made.error;
        (made.field === "name" ? name : desc).focus();
        return;
      }
      const w = await call(api().api.POST("/v1/admin/catalog/entries", { body: made.entry }));
      if (!w.ok) {
        status.textContent = w.error + (w.details ? `: ${JSON.stringify(w.details)}` : "");
        return;
      }
      status.textContent = (await done(made.entry.name)) ?? `Created ${made.entry.name}.`;
    };
    box.replaceChildren(
      el("fieldset", {}, [
        el("legend", { text: `A catalog entry for ${functionality}` }),
        el("label", { for: nameId, text: "Entry name" }),
        name,
        el("label", { for: descId, text: "Description (yours: planners read it)" }),
        el("p", {
          id: `${descId}-hint`,
          class: "hint",
          text: "Say what it does in your words; the app's own description is not copied into the catalog.",
        }),
        desc,
        el("details", {}, [
          el("summary", { text: "Its schemas (the app's, without their prose)" }),
          el("pre", { class: "card-value", text: JSON.stringify(proposal.entry.request, null, 2) }),
          el("pre", { class: "card-value", text: JSON.stringify(proposal.entry.response, null, 2) }),
        ]),
        el("button", { type: "button", onclick: () => void create(), text: "Create entry and bind" }),
      ]),
    );
    desc.focus();
  };
  const words = fits ? "Propose a new entry" : "Propose entry";
  const button = el("button", {
    type: "button",
    class: "secondary",
    onclick: () => void open(),
    text: words,
    "aria-label": `${words} for ${functionality}`,
  });
  box.appendChild(button);
  return el("div", {}, [box, status]);
}
