/** Admin: the policy editor (errors at their field) and the audit log with filters. */
export const POLICY = String.raw`
(function () {
  var el = L.el;

  /** Puts the cursor on the field an error names (its last key in the JSON text), so it is found. */
  function goTo(field) {
    var text = L.$("policy-text");
    var keys = field.split(".").slice(1).filter(function (k) { return !/^\d+$/.test(k); });
    var at = -1;
    keys.forEach(function (k) { var i = text.value.indexOf('"' + k + '"', at + 1); if (i >= 0) at = i; });
    text.focus();
    if (at < 0) return;
    text.setSelectionRange(at, at + keys[keys.length - 1].length + 2);
    // A textarea does not scroll to a selection made by script: bring its line into view.
    var line = text.value.slice(0, at).split("\n").length;
    text.scrollTop = Math.max(0, (line - 3) * (parseFloat(getComputedStyle(text).lineHeight) || 20));
  }

  L.pages.policy = async function () {
    var text = L.$("policy-text");
    var errors = L.$("policy-errors");
    var r = await L.api("GET", "/v1/admin/policy");
    if (!r.ok) { errors.textContent = L.errorText(r); return; }
    text.value = JSON.stringify(r.body.policy, null, 2);
    L.$("policy-status").textContent = "Version " + r.body.version + " in force.";
    L.$("policy-form").addEventListener("submit", async function (e) {
      e.preventDefault();
      L.clear(errors);
      text.removeAttribute("aria-invalid");
      var doc;
      try { doc = JSON.parse(text.value); } catch (err) {
        text.setAttribute("aria-invalid", "true");
        errors.appendChild(el("p", { class: "field-error", text: "Not JSON: " + err.message }));
        return;
      }
      var saved = await L.api("PUT", "/v1/admin/policy", doc);
      if (saved.ok) {
        L.$("policy-status").textContent = "Saved: version " + saved.body.version + " in force.";
        text.value = JSON.stringify(saved.body.policy, null, 2);
        return;
      }
      text.setAttribute("aria-invalid", "true");
      var details = (saved.body && saved.body.error && saved.body.error.details) || [];
      errors.appendChild(el("p", { class: "error", text: L.errorText(saved) }));
      errors.appendChild(el("ul", {}, details.map(function (d) {
        var field = d.field.replace(/^body\.?/, "") || "(the whole document)";
        return el("li", { class: "field-error", "data-field": field }, [
          el("code", { text: field }), ": " + d.message + " ",
          el("button", { type: "button", onclick: function () { goTo(d.field); }, text: "Go to " + field }),
        ]);
      })));
      if (details[0]) goTo(details[0].field);
    });
  };

  L.pages.audit = async function () {
    var target = L.$("audit");
    async function load() {
      var since = L.$("audit-since").value.trim();
      var type = L.$("audit-type").value.trim().toLowerCase();
      // The API pages oldest first; read on (at most 10 pages) and show the newest matches first.
      var events = [], cursor = since || "0";
      for (var page = 0; page < 10; page++) {
        var r = await L.api("GET", "/v1/admin/audit?limit=1000&since=" + encodeURIComponent(cursor));
        if (!r.ok) { target.textContent = L.errorText(r); return; }
        events = events.concat(r.body.events);
        if (r.body.events.length < 1000) break;
        cursor = String(r.body.events[r.body.events.length - 1].seq);
      }
      var shown = events.filter(function (e) { return !type || e.type.toLowerCase().indexOf(type) >= 0; }).reverse().slice(0, 300);
      L.clear(target).appendChild(el("p", { role: "status", text: shown.length + " event(s) shown, newest first." }));
      target.appendChild(el("table", {}, [
        el("thead", {}, [el("tr", {}, ["#", "Time", "Type", "Detail"].map(function (h) { return el("th", { scope: "col", text: h }); }))]),
        el("tbody", {}, shown.map(function (e) {
          return el("tr", {}, [el("td", { text: e.seq }), el("td", { text: e.at }), el("th", { scope: "row", text: e.type }), el("td", {}, [L.value(e.detail)])]);
        })),
      ]));
    }
    L.$("audit-form").addEventListener("submit", function (e) { e.preventDefault(); load(); });
    await load();
  };
})();
`;
