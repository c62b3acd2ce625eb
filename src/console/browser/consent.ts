/**
 * A consent as a dialog: what is asked, of which app, the view's fields (each value quoted, its
 * source in words, highlighted when not the user's words; warnings first), the hub's assessment,
 * the app choice with nothing picked unless the user's standing default says so, and the scopes. A
 * consent stored before views (no `view`) shows its data as before.
 */

import type { Lattice } from "@lattice/client";
import { prettyText } from "./answer.ts";
import { call } from "./api.ts";
import { scopeChoices, verdictOf, viewModel } from "./consent-model.ts";
import { el, say } from "./dom.ts";
import { type Consent, type ConsentView, KIND, SCOPE } from "./words.ts";

/** The consent whose buttons were just used: its answer takes focus when it is rendered. */
let focusAnswered: string | null = null;

/** Whose words a consent's raw data are: an app's model writes a collaboration's or endorsement's request. */
function dataTitle(consent: Consent): string {
  if (consent.kind === "collaboration" || consent.kind === "endorse") {
    return `Written by ${consent.from?.[0] ?? "an app"}'s model (not Lattice's)`;
  }
  return consent.kind === "irreversible" ? "What will be done" : "Data";
}

/** The view's fields and warnings: the warnings lead, in Lattice's words, each value shown quoted. */
function viewSection(id: string, consent: Consent & { view: ConsentView }): HTMLElement {
  const m = viewModel(consent);
  const parts: HTMLElement[] = [el("p", { class: "view-title", text: m.title })];
  if (m.warnings.length) {
    parts.push(
      el("section", { class: "warnings", role: "note", "aria-labelledby": `${id}-warn` }, [
        el("h4", {
          id: `${id}-warn`,
          text: `Check before you answer: ${m.warnings.length} warning${m.warnings.length === 1 ? "" : "s"}`,
        }),
        el(
          "ul",
          {},
          m.warnings.map((w) =>
            el("li", {}, [
              el("strong", {}, [
                w.fieldIsData ? el("code", { class: "data-label", text: w.field }) : w.field,
                ": ",
              ]),
              w.message,
              w.visible === null
                ? null
                : el("span", { class: "visible" }, [
                    " Shown with every character visible: ",
                    el("code", { text: w.visible }),
                  ]),
            ]),
          ),
        ),
      ]),
    );
  }
  parts.push(
    el(
      "dl",
      { class: "view-fields" },
      m.fields.flatMap((f) => [
        f.labelIsData
          ? el("dt", {}, [el("code", { class: "data-label", text: f.label })])
          : el("dt", { text: f.label }),
        el(
          "dd",
          {
            class: `field${f.highlight ? " highlight" : ""}${f.warned ? " warned" : ""}`,
            "data-field": f.name,
          },
          [
            f.value === null
              ? el("span", { class: "withheld", text: f.withheldText ?? "" })
              : el("q", { class: "quoted", text: f.value }),
            el("span", { class: "source", text: ` from ${f.source}` }),
          ],
        ),
      ]),
    ),
  );
  parts.push(el("p", { class: "reason" }, [el("strong", { text: "Why Lattice asks: " }), m.reason]));
  return el("section", { class: `view view-${consent.view.kind}`, "aria-label": "What is asked" }, parts);
}

function optionsFieldset(id: string, consent: Consent): HTMLElement | null {
  const options = consent.view
    ? viewModel(consent as Consent & { view: ConsentView }).options
    : (consent.options ?? []).map((o) => ({ ...o, checked: false }));
  if (!options.length) return null;
  return el("fieldset", {}, [
    el("legend", { text: "Which app?" }),
    ...options.map((o, i) => {
      const rid = `${id}-opt-${i}`;
      return el("div", { class: "option" }, [
        // Unpicked unless the user's standing default says so: the options come in whatever order the
        // apps' names sort, and an app may take a name to come first.
        el("input", { type: "radio", name: "choice", id: rid, value: o.tool, checked: o.checked }),
        el("label", { for: rid, text: o.app }),
        el("figure", { class: "app-words" }, [
          el("blockquote", { text: o.description }),
          el("figcaption", { text: `In ${o.app}'s own words (not Lattice's)` }),
        ]),
      ]);
    }),
  ]);
}

export function renderConsent(
  client: Lattice,
  sid: string,
  consent: Consent,
  onAnswered: (c: Consent) => void,
): HTMLElement {
  const id = `consent-${consent.id}`;
  const apps: string[] = [];
  if (consent.from?.length) apps.push(`from ${consent.from.join(", ")}`);
  if (consent.to) apps.push(`to ${consent.to}`);
  const view = consent.view;
  const facts = el("dl", { class: "facts" }, [
    el("dt", { text: "Kind" }),
    el("dd", { text: KIND[consent.kind] ?? consent.kind }),
    ...(apps.length || view?.app
      ? [el("dt", { text: "App(s)" }), el("dd", { text: apps.join(" ") || view?.app })]
      : []),
    el("dt", { text: "Action" }),
    el("dd", { text: consent.functionality }),
    // Without a view, the call's data as it is (a consent stored before views).
    ...(view
      ? []
      : [
          el("dt", { text: dataTitle(consent) }),
          el("dd", {}, [el("pre", { class: "value", text: prettyText(consent.data) })]),
        ]),
  ]);
  const verdict = verdictOf(consent);
  const assessment = el(
    "section",
    { class: `assessment ${verdict.tone}`, "aria-labelledby": `${id}-assess` },
    [
      el("h4", { id: `${id}-assess`, text: verdict.headline }),
      verdict.reasons.length
        ? el(
            "ul",
            {},
            verdict.reasons.map((r) => el("li", { text: r })),
          )
        : el("p", { text: verdict.note ?? "" }),
    ],
  );
  const parts: HTMLElement[] = [
    el("h3", { id: `${id}-title`, text: `Consent: ${KIND[consent.kind] ?? consent.kind}` }),
  ];
  if (view) parts.push(viewSection(id, consent as Consent & { view: ConsentView }));
  parts.push(facts, assessment);
  if (consent.status !== "pending") {
    const answered = el("p", {
      class: "answered",
      id: `${id}-answered`,
      tabindex: "-1",
      text: `Answered: ${consent.status}${consent.scope ? ` (${SCOPE[consent.scope]})` : ""}`,
    });
    parts.push(answered);
    // The buttons just used are gone: focus goes to the answer, not back to the top of the page.
    if (focusAnswered === consent.id) {
      setTimeout(() => {
        const n = document.getElementById(`${id}-answered`);
        if (n) {
          n.focus();
          focusAnswered = null;
          say(n.textContent ?? "");
        }
      }, 0);
    }
    return el("section", { class: "consent", id, "aria-labelledby": `${id}-title` }, parts);
  }
  const form = el("form", { class: "consent-form" });
  const options = optionsFieldset(id, consent);
  if (options) form.appendChild(options);
  form.appendChild(
    el("fieldset", {}, [
      el("legend", { text: "Remember my answer" }),
      ...scopeChoices(consent.scopes).map((s) =>
        el("div", { class: "option" }, [
          el("input", {
            type: "radio",
            name: "scope",
            id: `${id}-scope-${s.value}`,
            value: s.value,
            checked: s.checked,
          }),
          el("label", { for: `${id}-scope-${s.value}`, text: s.text }),
        ]),
      ),
    ]),
  );
  const error = el("p", { class: "error", role: "alert" });
  const buttons: HTMLButtonElement[] = [];
  const choices = (consent.view?.options ?? consent.options ?? []).length;
  async function send(decision: "allow" | "deny") {
    const data = new FormData(form);
    const choice = data.get("choice");
    if (decision === "allow" && choices > 1 && !choice) {
      error.textContent = "Pick the app first.";
      return;
    }
    const scope = (data.get("scope") as Consent["scopes"][number] | null) ?? "once";
    const r = await call(
      client.api.POST("/v1/sessions/{sid}/consents/{cid}", {
        params: { path: { sid, cid: consent.id } },
        body: { decision, scope, ...(typeof choice === "string" && { choice }) },
      }),
    );
    if (!r.ok || !r.data) {
      error.textContent = r.error;
      return;
    }
    focusAnswered = consent.id;
    onAnswered(r.data as Consent);
  }
  async function answer(decision: "allow" | "deny") {
    // One answer at a time: the buttons wait for the API's reply (a second click sends nothing).
    if (buttons.some((b) => b.disabled)) return;
    for (const b of buttons) b.disabled = true;
    try {
      await send(decision);
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  }
  // The sign-in URL comes from the app's authorization server: only a web address becomes a link,
  // named by its host so the person sees where they sign in. It is settled by the sign-in's
  // callback, so the only answer here is Deny.
  const authorize = consent.kind === "authorize";
  const url = consent.authorization?.url;
  if (authorize && url && /^https?:\/\//i.test(url)) {
    form.appendChild(
      el("p", {}, [
        el("a", { href: url, rel: "noopener noreferrer", text: `Sign in at ${new URL(url).host}` }),
      ]),
    );
  }
  if (!authorize) {
    buttons.push(
      el("button", {
        type: "button",
        id: `${id}-allow`,
        class: "allow",
        onclick: () => void answer("allow"),
        text: "Allow",
      }),
    );
  }
  buttons.push(
    el("button", {
      type: "button",
      id: `${id}-deny`,
      class: "deny",
      onclick: () => void answer("deny"),
      text: "Deny",
    }),
  );
  form.appendChild(el("div", { class: "buttons" }, buttons));
  form.appendChild(error);
  parts.push(form);
  return el(
    "section",
    { class: "consent pending", id, role: "group", "aria-labelledby": `${id}-title` },
    parts,
  );
}
