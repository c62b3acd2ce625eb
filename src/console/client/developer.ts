/** Developer: my apps with their versions and review state, and signing-secret rotation. */
export const DEVELOPER = String.raw`
(function () {
  var el = L.el;
  var head = function (names) { return el("thead", {}, [el("tr", {}, names.map(function (h) { return el("th", { scope: "col", text: h }); }))]); };

  L.pages.developer = async function () {
    var target = L.$("apps");
    var r = await L.api("GET", "/v1/apps");
    if (!r.ok) { target.textContent = L.errorText(r); return; }
    if (!r.body.apps.length) { target.appendChild(el("p", { text: "No apps registered with this key." })); return; }
    r.body.apps.forEach(function (app) {
      var id = "app-" + app.id;
      // Not a live region: a secret read aloud is a secret spoken in the room. Focus moves to it instead.
      var secret = el("div", { class: "secret" });
      var immediate = id + "-immediate";
      async function rotate() {
        var now = L.$(immediate).checked;
        if (now && !confirm("Rotate the signing secret of " + app.name + " immediately? Calls signed with the old secret fail at once.")) return;
        var x = await L.api("POST", "/v1/apps/" + app.id + "/secret", { immediate: now });
        if (!x.ok) { L.clear(secret).appendChild(el("p", { class: "error", role: "alert", text: L.errorText(x) })); return; }
        var note = el("p", { tabindex: "-1", text: "New signing secret (shown once, copy it now; " + (x.body.previousValidUntil ? "the old one is valid until " + x.body.previousValidUntil : "the old one no longer works") + "):" });
        L.clear(secret).appendChild(note);
        secret.appendChild(el("pre", { class: "value", text: x.body.secret }));
        note.focus();
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
