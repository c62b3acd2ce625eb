/** Admin: pending versions with their diff, binding and clearance at approval; the catalog. */
export const ADMIN = String.raw`
(function () {
  var el = L.el;

  /**
   * A manifest as path -> JSON text. Lists of named things (functionalities, an MCP server's tool
   * definitions, an agent's tools) are keyed by name, so a diff pairs each with its old self and one
   * changed description is one row, not the whole list.
   */
  var KEYED = { functionalities: true, "mcp.definitions": true, "agent.tools": true };
  function flatten(value, path, out) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      var keys = Object.keys(value);
      if (!keys.length && path) out[path] = "{}";
      keys.forEach(function (k) { flatten(value[k], path ? path + "." + k : k, out); });
    } else if (Array.isArray(value) && KEYED[path] && value.every(function (f) { return f && typeof f.name === "string"; })) {
      if (!value.length) out[path] = "[]";
      value.forEach(function (f) { flatten(f, path + "[" + f.name + "]", out); });
    } else out[path] = JSON.stringify(value);
    return out;
  }

  /** Rows that differ between the approved manifest and the pending one. */
  L.diff = function (before, after) {
    var a = flatten(before || {}, "", {});
    var b = flatten(after, "", {});
    var paths = Object.keys(a).concat(Object.keys(b).filter(function (p) { return !(p in a); })).sort();
    return paths.filter(function (p) { return a[p] !== b[p]; }).map(function (p) { return { path: p, before: a[p], after: b[p] }; });
  };

  function diffTable(app, v, rows) {
    var caption = app.serving ? "Changes against approved version " + app.serving : "New app: everything it declares";
    if (!rows.length) return el("p", { text: "No change against the approved version." });
    return el("table", { class: "diff" }, [
      el("caption", { text: caption + (v.manifest.mcp ? " (mcp.definitions are the MCP server's tool definitions, as it listed them)" : "") }),
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "Field" }), el("th", { scope: "col", text: "Approved" }), el("th", { scope: "col", text: "Pending" })])]),
      el("tbody", {}, rows.map(function (r) {
        return el("tr", {}, [
          el("th", { scope: "row", text: r.path }),
          el("td", { class: r.before === undefined ? "" : "diff-del", text: r.before === undefined ? "—" : r.before }),
          el("td", { class: r.after === undefined ? "" : "diff-add", text: r.after === undefined ? "(removed)" : r.after }),
        ]);
      })),
    ]);
  }

  /**
   * Per functionality and agent tool: the destinations its developer declared and those Lattice
   * infers from its schema (formats, names). Values can add more at call time unless the admin
   * confirms the whole list here; only that confirmation turns the inference off.
   */
  function destinationsFieldset(id, view) {
    var set = el("fieldset", {}, [el("legend", { text: "Destinations (where data, messages or money go)" })]);
    var rows = [];
    [["functionalities", "functionality"], ["tools", "agent tool"]].forEach(function (kind) {
      Object.keys((view && view[kind[0]]) || {}).forEach(function (name, i) {
        var d = view[kind[0]][name];
        var box = id + "-dest-" + kind[0] + "-" + i;
        var list = (d.declared || []).concat(d.inferred);
        rows.push(el("tr", {}, [
          el("th", { scope: "row", text: name + " (" + kind[1] + ")" }),
          el("td", { text: d.declared ? d.declared.join(", ") || "none (declared empty)" : "not declared" }),
          el("td", { text: d.inferred.join(", ") || "—" }),
          el("td", {}, [
            el("input", { id: box, type: "checkbox", name: "confirm:" + kind[0] + ":" + name }),
            el("label", { for: box, text: "confirm exactly: " }),
            el("input", { id: box + "-paths", type: "text", name: "dest:" + kind[0] + ":" + name, value: (d.confirmed || list).join(", "), "aria-label": "Destination paths of " + name }),
          ]),
        ]));
      });
    });
    if (!rows.length) return el("p", { text: "No functionality or tool to review for destinations." });
    set.appendChild(el("p", { text: "Inferred destinations count unless you confirm a list: checked, the paths given (comma-separated; empty = sends nowhere) replace them." }));
    set.appendChild(el("table", {}, [
      el("thead", {}, [el("tr", {}, ["Name", "Declared", "Inferred", "Your confirmation"].map(function (h) { return el("th", { scope: "col", text: h }); }))]),
      el("tbody", {}, rows),
    ]));
    return set;
  }

  /** The checked destination lists, as the approval's destinations; null when none is checked. */
  function confirmedDestinations(data) {
    var out = null;
    data.forEach(function (value, key) {
      if (key.indexOf("confirm:") !== 0) return;
      var parts = key.split(":"), kind = parts[1], name = parts.slice(2).join(":");
      var paths = String(data.get("dest:" + kind + ":" + name) || "").split(",").map(function (p) { return p.trim(); }).filter(Boolean);
      out = out || {};
      out[kind] = out[kind] || {};
      out[kind][name] = paths;
    });
    return out;
  }

  function pendingCard(app, v, catalog, levels, reload) {
    var id = "review-" + app.id + "-" + v.version;
    var approved = app.versions.filter(function (x) { return x.version === app.serving; })[0];
    var form = el("form", { class: "review" });
    var names = catalog.map(function (e) { return e.name; });
    var bindings = el("fieldset", {}, [el("legend", { text: "Bind each functionality to a catalog entry" })]);
    v.manifest.functionalities.forEach(function (f, i) {
      var sel = id + "-bind-" + i;
      var guess = (approved && approved.bindings[f.name]) || (names.indexOf(app.name + "." + f.name) >= 0 ? app.name + "." + f.name : "");
      bindings.appendChild(el("label", { for: sel, text: f.name + (f.tool ? " (MCP tool " + f.tool.name + ")" : "") }));
      bindings.appendChild(el("select", { id: sel, name: "bind:" + f.name }, [el("option", { value: "", text: "not bound (cannot be planned)" })].concat(names.map(function (n) {
        return el("option", { value: n, selected: n === guess, text: n });
      }))));
    });
    form.appendChild(bindings);
    form.appendChild(destinationsFieldset(id, v.destinations));
    var clearance = id + "-clearance";
    form.appendChild(el("label", { for: clearance, text: "Clearance (the most confidential data it may receive)" }));
    form.appendChild(el("select", { id: clearance, name: "clearance" }, levels.map(function (l) {
      return el("option", { value: l, selected: l === ((approved && approved.clearance) || "internal"), text: l });
    })));
    var reason = id + "-reason";
    form.appendChild(el("label", { for: reason, text: "Reason (shown to the developer if you reject)" }));
    form.appendChild(el("input", { id: reason, name: "reason", type: "text" }));
    var status = el("p", { class: "review-status", role: "alert" });
    var base = "/v1/admin/apps/" + app.id + "/versions/" + v.version;
    async function approve() {
      var data = new FormData(form);
      var b = {};
      data.forEach(function (value, key) { if (key.indexOf("bind:") === 0 && value) b[key.slice(5)] = value; });
      var body = { clearance: data.get("clearance"), bindings: b };
      var confirmed = confirmedDestinations(data);
      if (confirmed) body.destinations = confirmed;
      var r = await L.api("POST", base + "/approve", body);
      var details = r.body && r.body.error && r.body.error.details;
      if (!r.ok) { status.textContent = L.errorText(r) + (details ? ": " + JSON.stringify(details) : ""); return; }
      status.textContent = "Approved version " + v.version + " of " + app.name;
      reload(status.textContent);
    }
    async function reject() {
      var why = new FormData(form).get("reason");
      if (!why) { status.textContent = "Say why, for the developer."; L.$(reason).focus(); return; }
      var r = await L.api("POST", base + "/reject", { reason: why });
      status.textContent = r.ok ? "Rejected version " + v.version + " of " + app.name : L.errorText(r);
      if (r.ok) reload(status.textContent);
    }
    form.appendChild(el("div", { class: "buttons" }, [
      el("button", { type: "button", onclick: approve, text: "Approve" }),
      el("button", { type: "button", onclick: reject, text: "Reject" }),
    ]));
    form.appendChild(status);
    return el("article", { class: "pending-app", "aria-labelledby": id + "-title" }, [
      el("h3", { id: id + "-title", text: app.name + " version " + v.version + " (" + v.label + ")" }),
      diffTable(app, v, L.diff(approved && approved.manifest, v.manifest)),
      form,
    ]);
  }

  L.pages["admin-apps"] = async function () {
    async function load(message) {
      var results = await Promise.all([L.api("GET", "/v1/admin/apps"), L.api("GET", "/v1/admin/catalog"), L.api("GET", "/v1/admin/policy")]);
      var failed = results.filter(function (r) { return !r.ok; })[0];
      if (failed) { L.$("pending").textContent = L.errorText(failed); return; }
      var apps = results[0].body.apps, catalog = results[1].body.entries, levels = results[2].body.policy.lattices.confidentiality;
      var pending = L.clear(L.$("pending"));
      // The card whose button was used is gone: focus goes to the heading, the outcome to the live region.
      if (message) { pending.appendChild(el("p", { class: "done", text: message })); L.say(message); L.focusMain(); }
      var cards = [];
      apps.forEach(function (app) {
        app.versions.filter(function (v) { return v.status === "pending"; }).forEach(function (v) { cards.push(pendingCard(app, v, catalog, levels, load)); });
      });
      if (!cards.length) pending.appendChild(el("p", { text: "No version waits for review." }));
      cards.forEach(function (c) { pending.appendChild(c); });
      L.clear(L.$("apps")).appendChild(el("table", {}, [
        el("thead", {}, [el("tr", {}, ["App", "Serving", "Versions", "Enabled"].map(function (h) { return el("th", { scope: "col", text: h }); }))]),
        el("tbody", {}, apps.map(function (app) {
          return el("tr", {}, [
            el("th", { scope: "row", text: app.name }),
            el("td", { text: app.serving ? "version " + app.serving : "none" }),
            el("td", { text: app.versions.map(function (v) { return v.version + ": " + v.status + (v.clearance ? " (" + v.clearance + ")" : ""); }).join("; ") }),
            el("td", { text: app.enabled ? "yes" : "no" }),
          ]);
        })),
      ]));
    }
    await load("");
  };

  L.pages.catalog = async function () {
    var r = await L.api("GET", "/v1/admin/catalog");
    var target = L.$("catalog");
    if (!r.ok) { target.textContent = L.errorText(r); return; }
    target.appendChild(el("p", { text: "Version " + r.body.version + ": " + r.body.entries.length + " entries, in your words; planners read only these." }));
    target.appendChild(el("table", {}, [
      el("thead", {}, [el("tr", {}, ["Entry", "Description", "Irreversible", "Output label", "Destinations"].map(function (h) { return el("th", { scope: "col", text: h }); }))]),
      el("tbody", {}, r.body.entries.map(function (e) {
        return el("tr", {}, [
          el("th", { scope: "row", text: e.name }),
          el("td", { text: e.description }),
          el("td", { text: e.irreversible ? "yes" : "no" }),
          el("td", { text: e.output ? (e.output.confidentiality || "") + " / " + (e.output.integrity || "") : "—" }),
          el("td", { text: (e.destinations || []).join(", ") || "—" }),
        ]);
      })),
    ]));
  };
})();
`;
