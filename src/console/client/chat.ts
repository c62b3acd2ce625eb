/** Chat and the consent page: a session's query followed live from its event stream. */
export const CHAT = String.raw`
(function () {
  var el = L.el;

  /** A line for the live list: what happened, in words (the event's values stay in the query view). */
  function describe(e) {
    var d = e.data || {};
    switch (e.type) {
      case "query_started": return "Query started";
      case "planning": return "Planning";
      case "planned": return "Plan verified (" + d.attempts + " attempt" + (d.attempts === 1 ? "" : "s") + ")";
      case "step_started": return "Step " + d.key + ": " + (d.kind === "tool" ? d.tool + " on " + d.app : "a model reads untrusted content");
      case "step_finished": return "Step " + d.key + " done" + (d.label ? ", label " + d.label.confidentiality + " / " + d.label.integrity : "");
      case "consent_requested": return "Your consent is asked (" + d.kind + ")";
      case "consent_answered": return "Consent answered: " + d.decision;
      case "display": return "Shown: " + d.key;
      case "display_redacted": return "Withheld: " + d.key;
      case "query_finished": return "Query finished";
      default: return e.type.replace(/_/g, " ");
    }
  }

  /**
   * Re-reads a query and renders it into target. Reads are serialised, so an older answer never
   * renders over a newer one: a refresh asked during a read makes one more read after it.
   */
  function refresher(target, opts) {
    var busy = false, again = false;
    var state = { sid: null, qid: null };
    async function read() {
      again = false;
      var qid = state.qid;
      var r = await L.api("GET", "/v1/sessions/" + state.sid + "/queries/" + qid);
      if (r.ok && qid === state.qid) L.renderQuery(target, state.sid, r.body, state.refresh, opts);
      if (again) setTimeout(read, 50);
      else busy = false;
    }
    state.refresh = function () {
      if (!state.qid) return;
      if (busy) { again = true; return; }
      busy = true;
      setTimeout(read, 50);
    };
    return state;
  }

  /** Follows one query: its events (if listed) and its view, refreshed on each of them. */
  function follow(sid, qid, target, events, opts) {
    var view = refresher(target, opts);
    view.sid = sid;
    view.qid = qid;
    var stream = L.stream(sid, function (e) {
      if (e.queryId !== qid) return;
      if (events) events.appendChild(el("li", { "data-type": e.type, text: describe(e) }));
      view.refresh();
      if (opts && opts.onEvent) opts.onEvent(e);
    });
    view.refresh();
    return stream;
  }

  /**
   * Chat: one stream for the session; the latest query is the one shown (on a reload, the stream's
   * replay walks through the earlier ones to it).
   */
  L.pages.chat = async function () {
    var view = refresher(L.$("query"));
    var events = L.$("events");
    var stream = null;
    view.sid = document.body.dataset.session || null;
    function show(qid) {
      if (qid === view.qid) return;
      view.qid = qid;
      L.clear(events);
    }
    function open() {
      stream = stream || L.stream(view.sid, function (e) {
        if (e.type === "query_started") show(e.queryId);
        if (e.queryId !== view.qid) return;
        events.appendChild(el("li", { "data-type": e.type, text: describe(e) }));
        view.refresh();
      });
    }
    function failed(text) { L.clear(L.$("query")).appendChild(el("p", { class: "error", role: "alert", text: text })); }
    if (view.sid) open();
    document.querySelectorAll("button.example").forEach(function (b) {
      b.addEventListener("click", function () { L.$("question").value = b.dataset.question; L.$("question").focus(); });
    });
    L.$("ask-form").addEventListener("submit", async function (e) {
      e.preventDefault();
      var text = L.$("question").value.trim();
      if (!text) return;
      if (!view.sid) {
        var s = await L.api("POST", "/v1/sessions", { userId: L.user });
        if (!s.ok) { failed(L.errorText(s)); return; }
        view.sid = s.body.id;
        history.replaceState(null, "", "/console/sessions/" + view.sid);
      }
      var q = await L.api("POST", "/v1/sessions/" + view.sid + "/queries", { text: text });
      if (!q.ok) { failed(L.errorText(q)); return; }
      show(q.body.id);
      open();
      view.refresh();
    });
  };

  /** The consent page: its consent re-read on each of its query's events (it may be answered elsewhere). */
  L.pages.consent = async function () {
    var sid = document.body.dataset.session;
    var cid = document.body.dataset.consent;
    var target = L.$("consent");
    var following = false, shown = null;
    async function load() {
      var r = await L.api("GET", "/v1/sessions/" + sid + "/consents/" + cid);
      if (r.status === 404) { target.textContent = "No such consent in this session."; return; }
      if (!r.ok) { target.textContent = L.errorText(r); return; }
      var consent = r.body;
      // A pending dialog is kept while it stays pending: the person's choices in it survive.
      if (shown !== consent.status || consent.status !== "pending") L.clear(target).appendChild(L.renderConsent(sid, consent, load));
      shown = consent.status;
      if (following) return;
      following = true;
      // A consent link reads and answers this consent only: the outcome shows in the chat it came from.
      if (L.viaLink) { L.$("query").textContent = "Your chat shows the outcome: once you have answered here, send any message there."; return; }
      follow(sid, consent.queryId, L.$("query"), null, { consents: false, onEvent: function (e) { if (/^consent_/.test(e.type)) load(); } });
    }
    await load();
  };
})();
`;
