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

  /** Follows one query: every event of it is listed and the query view refreshed. */
  function follow(sid, qid, target, events, opts) {
    var pending = null;
    function refresh() {
      if (pending) return;
      pending = setTimeout(async function () {
        pending = null;
        var r = await L.api("GET", "/v1/sessions/" + sid + "/queries/" + qid);
        if (r.ok) L.renderQuery(target, sid, r.body, refresh, opts);
      }, 50);
    }
    var stream = L.stream(sid, function (e) {
      if (e.queryId !== qid) return;
      if (events) events.appendChild(el("li", { "data-type": e.type, text: describe(e) }));
      refresh();
    });
    refresh();
    return stream;
  }
  L.follow = follow;

  L.pages.chat = async function () {
    var sid = document.body.dataset.session || null;
    var current = null;
    document.querySelectorAll("button.example").forEach(function (b) {
      b.addEventListener("click", function () { L.$("question").value = b.dataset.question; L.$("question").focus(); });
    });
    L.$("ask-form").addEventListener("submit", async function (e) {
      e.preventDefault();
      var text = L.$("question").value.trim();
      if (!text) return;
      if (!sid) {
        var s = await L.api("POST", "/v1/sessions", { userId: L.user });
        if (!s.ok) { L.$("query").textContent = L.errorText(s); return; }
        sid = s.body.id;
        history.replaceState(null, "", "/console/sessions/" + sid);
      }
      var q = await L.api("POST", "/v1/sessions/" + sid + "/queries", { text: text });
      if (!q.ok) { L.$("query").textContent = L.errorText(q); return; }
      if (current) current.stop();
      L.clear(L.$("events"));
      current = follow(sid, q.body.id, L.$("query"), L.$("events"));
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
