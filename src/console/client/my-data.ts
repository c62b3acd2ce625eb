/** My data: the signed-in user's artifacts (shown within the display policy, erased) and grants (revoked). */
export const MY_DATA = String.raw`
(function () {
  var el = L.el;
  var head = function (names) { return el("thead", {}, [el("tr", {}, names.map(function (h) { return el("th", { scope: "col", text: h }); }))]); };

  L.pages.data = async function () {
    var base = "/v1/users/" + encodeURIComponent(L.user);
    async function artifacts() {
      var target = L.clear(L.$("artifacts"));
      var r = await L.api("GET", base + "/artifacts");
      if (!r.ok) { target.textContent = L.errorText(r); return; }
      if (!r.body.artifacts.length) { target.appendChild(el("p", { text: "Nothing saved." })); return; }
      target.appendChild(el("table", {}, [head(["Name", "What it is", "From the query", "Label", "Saved", "Actions"]), el("tbody", {}, r.body.artifacts.map(function (a) {
        var cell = el("td");
        var shown = el("div", { "aria-live": "polite" });
        async function show() {
          var v = await L.api("GET", base + "/artifacts/" + a.id);
          L.clear(shown).appendChild(!v.ok ? el("p", { text: L.errorText(v) }) : v.body.withheld ? el("p", { class: "withheld", text: "Withheld: its label is above what the display policy shows." }) : L.value(v.body.value));
        }
        async function erase() {
          if (!confirm("Erase " + a.name + "? It cannot be undone.")) return;
          var d = await L.api("DELETE", base + "/artifacts/" + a.id);
          if (!d.ok) { shown.textContent = L.errorText(d); return; }
          // The focused button is gone with its row: focus goes to the page's heading.
          await artifacts();
          L.focusMain();
          L.say("Erased " + a.name + ".");
        }
        cell.appendChild(el("button", { type: "button", onclick: show, "aria-label": "Show " + a.name, text: "Show" }));
        cell.appendChild(el("button", { type: "button", onclick: erase, "aria-label": "Erase " + a.name, text: "Erase" }));
        cell.appendChild(shown);
        return el("tr", {}, [el("th", { scope: "row", text: a.name }), el("td", { text: a.semantics || a.intent }), el("td", { text: a.query }), el("td", { text: a.label.confidentiality + " / " + a.label.integrity }), el("td", { text: a.createdAt }), cell]);
      }))]));
    }
    async function grants() {
      var target = L.clear(L.$("grants"));
      var r = await L.api("GET", base + "/grants");
      if (!r.ok) { target.textContent = L.errorText(r); return; }
      if (!r.body.grants.length) { target.appendChild(el("p", { text: "No standing permissions: every consent is asked when needed." })); return; }
      target.appendChild(el("table", {}, [head(["Permission", "Kind", "Given", ""]), el("tbody", {}, r.body.grants.map(function (g) {
        async function revoke() {
          var d = await L.api("DELETE", base + "/grants/" + g.id);
          if (!d.ok) { failed.textContent = "Not revoked: " + L.errorText(d); return; }
          await grants();
          L.focusMain();
          L.say("Revoked: " + g.description + ".");
        }
        var failed = el("p", { class: "error", role: "alert" });
        return el("tr", {}, [el("th", { scope: "row", text: g.description }), el("td", { text: g.kind }), el("td", { text: g.createdAt }),
          el("td", {}, [el("button", { type: "button", onclick: revoke, "aria-label": "Revoke: " + g.description, text: "Revoke" }), failed])]);
      }))]));
    }
    await Promise.all([artifacts(), grants()]);
  };

})();
`;
