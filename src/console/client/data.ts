/** My data (artifacts and grants, for the signed-in user) and the developer's apps. */
export const DATA = `
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
          var d = await L.api("DELETE", base + "/artifacts/" + a.id);
          if (d.ok) artifacts(); else shown.textContent = L.errorText(d);
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
        async function revoke() { var d = await L.api("DELETE", base + "/grants/" + g.id); if (d.ok) grants(); }
        return el("tr", {}, [el("th", { scope: "row", text: g.description }), el("td", { text: g.kind }), el("td", { text: g.createdAt }),
          el("td", {}, [el("button", { type: "button", onclick: revoke, "aria-label": "Revoke: " + g.description, text: "Revoke" })])]);
      }))]));
    }
    await Promise.all([artifacts(), grants()]);
  };

  L.pages.developer = async function () {
    var target = L.$("apps");
    var r = await L.api("GET", "/v1/apps");
    if (!r.ok) { target.textContent = L.errorText(r); return; }
    if (!r.body.apps.length) { target.appendChild(el("p", { text: "No apps registered with this key." })); return; }
    r.body.apps.forEach(function (app) {
      var id = "app-" + app.id;
      var secret = el("div", { role: "status" });
      var immediate = id + "-immediate";
      async function rotate() {
        var x = await L.api("POST", "/v1/apps/" + app.id + "/secret", { immediate: L.$(immediate).checked });
        if (!x.ok) { secret.textContent = L.errorText(x); return; }
        L.clear(secret).appendChild(el("p", { text: "New signing secret (shown once, copy it now; the old one is valid until " + x.body.previousValidUntil + "):" }));
        secret.appendChild(el("pre", { class: "value", text: x.body.secret }));
      }
      target.appendChild(el("article", { "aria-labelledby": id + "-title" }, [
        el("h3", { id: id + "-title", text: app.name }),
        el("p", { text: "Id " + app.id + " · serving " + (app.serving ? "version " + app.serving : "no version yet") + (app.enabled ? "" : " · disabled by the admin") }),
        el("table", {}, [head(["Version", "Label", "Review", "Reason", "Clearance", "Submitted", "Reviewed"]), el("tbody", {}, app.versions.map(function (v) {
          return el("tr", {}, [el("th", { scope: "row", text: v.version }), el("td", { text: v.label }), el("td", { text: v.status }), el("td", { text: v.reason || "" }), el("td", { text: v.clearance || "" }), el("td", { text: v.submittedAt }), el("td", { text: v.reviewedAt || "" })]);
        }))]),
        el("div", { class: "option" }, [el("input", { type: "checkbox", id: immediate }), el("label", { for: immediate, text: "Immediately (a leaked secret: the old one stops at once)" })]),
        el("button", { type: "button", onclick: rotate, text: "Rotate the signing secret of " + app.name }),
        secret,
      ]));
    });
  };
})();
`;
