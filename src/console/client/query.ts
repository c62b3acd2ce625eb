/**
 * Shown wherever a query is: its status, the display items with their provenance marks (redacted
 * items marked as withheld) and its consents as dialogs the user answers.
 */
export const QUERY = String.raw`
(function () {
  var el = L.el;
  var STATUS = {
    planning: "Planning", running: "Running", awaiting_consent: "Waiting for your answer",
    completed: "Completed", failed: "Failed", rejected: "Refused (the plan was not safe)",
  };
  var FROM = { user: "you", planner: "the planner", app: "an app", model: "a model reading app content", artifacts: "your saved data" };
  var KIND = {
    irreversible: "An action that cannot be undone",
    data_share: "Data shared between apps",
    app_selection: "Choose the app",
    collaboration: "An app asks another app",
    endorse: "Use a value from an app",
    authorize: "Sign in to an app",
  };
  var SCOPE = { once: "Just this once", session: "For this session", permanent: "Always (until I revoke it)" };

  /** Provenance as words: where the value came from, naming apps. */
  function marks(item) {
    var from = item.provenance.from.map(function (f) {
      return f === "app" && item.provenance.apps.length ? "app " + item.provenance.apps.join(", ") : FROM[f] || f;
    });
    var list = el("ul", { class: "marks", "aria-label": "Where this came from" }, from.map(function (f) {
      return el("li", { class: "mark", text: "from " + f });
    }));
    if (item.untrusted) list.appendChild(el("li", { class: "mark warn", text: "untrusted content" }));
    list.appendChild(el("li", { class: "mark", text: "label " + item.label.confidentiality + " / " + item.label.integrity }));
    return list;
  }

  /** Whose words a consent's data are: an app's model writes a collaboration's or endorsement's request. */
  function dataTitle(consent) {
    if (consent.kind === "collaboration" || consent.kind === "endorse") {
      var app = (consent.from && consent.from[0]) || "an app";
      return "Written by " + app + "'s model (not Lattice's)";
    }
    return consent.kind === "irreversible" ? "What will be done" : "Data";
  }

  L.renderDisplay = function (items) {
    if (!items.length) return el("p", { text: "Nothing to show yet." });
    return el("ul", { class: "display" }, items.map(function (item) {
      var title = item.title || item.key;
      if (item.redacted) {
        return el("li", { class: "item redacted", "data-key": item.key }, [
          el("h3", { text: title }),
          el("p", { class: "withheld", text: "Withheld: its label (" + item.label.confidentiality + ") is above what the display policy shows." }),
          marks(item),
        ]);
      }
      return el("li", { class: "item" + (item.untrusted ? " untrusted" : ""), "data-key": item.key }, [
        el("h3", { text: title }), L.value(item.value), marks(item),
      ]);
    }));
  };

  /** A consent as a dialog: what, who, the concrete data, the hub's assessment, and the scopes. */
  L.renderConsent = function (sid, consent, onAnswered) {
    var id = "consent-" + consent.id;
    var apps = [];
    if (consent.from && consent.from.length) apps.push("from " + consent.from.join(", "));
    if (consent.to) apps.push("to " + consent.to);
    var facts = el("dl", { class: "facts" }, [
      el("dt", { text: "Kind" }), el("dd", { text: KIND[consent.kind] || consent.kind }),
      el("dt", { text: "App(s)" }), el("dd", { text: apps.join(" ") || "—" }),
      el("dt", { text: "Action" }), el("dd", { text: consent.functionality }),
      el("dt", { text: dataTitle(consent) }), el("dd", {}, [L.value(consent.data)]),
    ]);
    var warning = consent.assessment.verdict === "warning";
    var assessment = el("section", { class: "assessment " + (warning ? "warn" : "ok"), "aria-labelledby": id + "-assess" }, [
      el("h4", { id: id + "-assess", text: "Lattice's assessment: " + (warning ? "be careful" : "as expected for your request") }),
      consent.assessment.reasons.length
        ? el("ul", {}, consent.assessment.reasons.map(function (r) { return el("li", { text: r }); }))
        : el("p", { text: "Nothing unusual: the step was planned from your request." }),
    ]);
    var parts = [el("h3", { id: id + "-title", text: "Consent: " + (KIND[consent.kind] || consent.kind) }), facts, assessment];
    if (consent.status !== "pending") {
      parts.push(el("p", { class: "answered", id: id + "-answered", tabindex: "-1", text: "Answered: " + consent.status + (consent.scope ? " (" + SCOPE[consent.scope] + ")" : "") }));
      // The buttons just used are gone: focus goes to the answer, not back to the top of the page.
      if (L.focusAnswered === consent.id) setTimeout(function () {
        var n = document.getElementById(id + "-answered");
        if (n) { n.focus(); L.focusAnswered = null; L.say(n.textContent); }
      }, 0);
      return el("section", { class: "consent", id: id, "aria-labelledby": id + "-title" }, parts);
    }
    var form = el("form", { class: "consent-form" });
    if (consent.options && consent.options.length) {
      form.appendChild(el("fieldset", {}, [el("legend", { text: "Which app?" })].concat(consent.options.map(function (o, i) {
        var rid = id + "-opt-" + i;
        return el("div", { class: "option" }, [
          // None preselected: the first option is in whatever order the apps' names sort, and an app
          // may take a name to come first. The person picks (a standing default never asks).
          el("input", { type: "radio", name: "choice", id: rid, value: o.tool }),
          el("label", { for: rid, text: o.app }),
          el("figure", { class: "app-words" }, [
            el("blockquote", { text: o.description }),
            el("figcaption", { text: "In " + o.app + "'s own words (not Lattice's)" }),
          ]),
        ]);
      }))));
    }
    form.appendChild(el("fieldset", {}, [el("legend", { text: "Remember my answer" })].concat(consent.scopes.map(function (s, i) {
      var sid2 = id + "-scope-" + s;
      return el("div", { class: "option" }, [
        el("input", { type: "radio", name: "scope", id: sid2, value: s, checked: i === 0 }),
        el("label", { for: sid2, text: SCOPE[s] || s }),
      ]);
    }))));
    var error = el("p", { class: "error", role: "alert" });
    var buttons = [];
    async function answer(decision) {
      // One answer at a time: the buttons wait for the API's reply (a second click sends nothing).
      if (buttons.some(function (b) { return b.disabled; })) return;
      buttons.forEach(function (b) { b.disabled = true; });
      try { await send(decision); } finally { buttons.forEach(function (b) { b.disabled = false; }); }
    }
    async function send(decision) {
      var data = new FormData(form);
      if (decision === "allow" && consent.options && consent.options.length > 1 && !data.get("choice")) {
        error.textContent = "Pick the app first.";
        return;
      }
      var payload = { decision: decision, scope: data.get("scope") || "once" };
      if (data.get("choice")) payload.choice = data.get("choice");
      var r = await L.api("POST", "/v1/sessions/" + sid + "/consents/" + consent.id, payload);
      if (!r.ok) { error.textContent = L.errorText(r); return; }
      L.focusAnswered = consent.id;
      onAnswered(r.body);
    }
    // The sign-in URL comes from the app's authorization server: only a web address becomes a link,
    // named by its host so the person sees where they sign in. It is settled by the sign-in's
    // callback, so the only answer here is Deny.
    var authorize = consent.kind === "authorize";
    if (authorize && consent.authorization && /^https?:\/\//i.test(consent.authorization.url)) {
      var host = new URL(consent.authorization.url).host;
      form.appendChild(el("p", {}, [el("a", { href: consent.authorization.url, rel: "noopener noreferrer", text: "Sign in at " + host })]));
    }
    if (!authorize) buttons.push(el("button", { type: "button", id: id + "-allow", class: "allow", onclick: function () { answer("allow"); }, text: "Allow" }));
    buttons.push(el("button", { type: "button", id: id + "-deny", class: "deny", onclick: function () { answer("deny"); }, text: "Deny" }));
    form.appendChild(el("div", { class: "buttons" }, buttons));
    form.appendChild(error);
    parts.push(form);
    return el("section", { class: "consent pending", id: id, role: "group", "aria-labelledby": id + "-title" }, parts);
  };

  /**
   * The whole query: status, error, answer, and its consents (pending ones answerable). A pending
   * consent's dialog is kept across re-renders while it stays pending, so the choices made in it
   * (scope, app) and its focus survive the events that arrive meanwhile.
   */
  L.renderQuery = function (target, sid, query, onChange, opts) {
    var kept = {};
    target.querySelectorAll("section.consent.pending").forEach(function (n) { kept[n.id] = n; });
    // Each event re-renders the query: whatever else had focus in it gets it back (by id).
    var active = document.activeElement;
    var keep = active && target.contains(active) ? active.id : "";
    if (keep) setTimeout(function () { var n = document.getElementById(keep); if (n && n !== document.activeElement) n.focus(); }, 0);
    var before = target.dataset.status;
    L.clear(target);
    target.dataset.status = query.status;
    target.appendChild(el("p", { class: "query-text" }, ["You asked: ", el("q", { text: query.text })]));
    var status = "Status: " + (STATUS[query.status] || query.status);
    target.appendChild(el("p", { class: "status status-" + query.status, text: status }));
    if (before !== query.status) L.say(status);
    if (query.error) target.appendChild(el("p", { class: "error", role: "alert", text: query.error.message + " (" + query.error.code + ")" }));
    if (!(opts && opts.consents === false)) (query.consents || []).forEach(function (c) {
      var old = c.status === "pending" && kept["consent-" + c.id];
      target.appendChild(old || L.renderConsent(sid, c, onChange));
    });
    target.appendChild(L.renderDisplay(query.display));
    target.appendChild(el("p", {}, [el("a", { href: "/console/sessions/" + sid + "/queries/" + query.id, text: "See the plan and its trace" })]));
  };
})();
`;
