/** Chat and the consent page: a session's query followed live from its event stream. */
export const CHAT = `
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

  /** Re-reads a query (at most one read in flight) and renders it into target. */
  function refresher(target, opts) {
    var pending = null;
    var state = { sid: null, qid: null };
    state.refresh = function () {
      if (pending || !state.qid) return;
      pending = setTimeout(async function () {
        pending = null;
        var r = await L.api("GET", "/v1/sessions/" + state.sid + "/queries/" + state.qid);
        if (r.ok) L.renderQuery(target, state.sid, r.body, state.refresh, opts);
      }, 50);
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
        if (!s.ok) { L.$("query").textContent = L.errorText(s); return; }
        view.sid = s.body.id;
        history.replaceState(null, "", "/console/sessions/" + view.sid);
      }
      var q = await L.api("POST", "/v1/sessions/" + view.sid + "/queries", { text: text });
      if (!q.ok) { L.$("query").textContent = L.errorText(q); return; }
      show(q.body.id);
      open();
      view.refresh();
    });
  };

  L.pages.consent = async function () {
    var sid = document.body.dataset.session;
    var cid = document.body.dataset.consent;
    var target = L.$("consent");
    async function load() {
      var r = await L.api("GET", "/v1/sessions/" + sid + "/consents");
      if (!r.ok) { target.textContent = L.errorText(r); return; }
      var consent = r.body.consents.filter(function (c) { return c.id === cid; })[0];
      if (!consent) { target.textContent = "No such consent in this session."; return; }
      L.clear(target).appendChild(L.renderConsent(sid, consent, load));
      if (!follow.started) { follow.started = true; follow(sid, consent.queryId, L.$("query"), null, { consents: false }); }
    }
    await load();
  };
})();
`;
