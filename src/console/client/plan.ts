/**
 * The plan view: each verified step with the source of each argument, the label its value got, and
 * the rules its flows met; the runtime trace beside it. Only the query view is read (public API).
 */
export const PLAN = String.raw`
(function () {
  var el = L.el;
  function labelText(l) { return l ? l.confidentiality + " / " + l.integrity : "not run"; }

  /** Where an argument comes from, in words. */
  function source(v, outs) {
    if (v && typeof v === "object") {
      if ("lit" in v) return "the literal " + JSON.stringify(v.lit);
      if ("ref" in v) {
        var path = v.path ? "." + [].concat(v.path).join(".") : "";
        var from = outs[v.ref];
        return "the value " + v.ref + path + (from ? " (label " + labelText(from.label) + ")" : "");
      }
      if ("arr" in v) return "a list of " + v.arr.map(function (x) { return source(x, outs); }).join(", ");
      if ("artifact" in v) return "saved data " + v.artifact;
    }
    return JSON.stringify(v);
  }

  /** The verifier's findings for a step (its static path): violations and redactions carry concrete levels. */
  function findings(query, key) {
    var v = query.verdict || {};
    return {
      violations: (v.violations || []).filter(function (x) { return x.path === key; }),
      redaction: (v.redactions || []).filter(function (x) { return x.path === key; })[0],
    };
  }

  /**
   * The rules a step's flows met, with the levels where the query view has them (a violation's or a
   * redaction's label against what was required); otherwise the rule in general words, saying so:
   * an app's clearance and the policy's integrity floors are the admin's, not in a user's view.
   */
  function rules(step, key, query, label) {
    var list = [];
    var f = findings(query, key);
    if (step.kind === "tool") {
      var conf = f.violations.filter(function (v) { return v.rule === "confidentiality"; });
      var integ = f.violations.filter(function (v) { return v.rule === "integrity"; });
      var what = function (v) { return v.argument ? "argument " + v.argument : "the call itself (it depends on a condition)"; };
      if (conf.length) conf.forEach(function (v) { list.push("confidentiality: not met: " + what(v) + " carries " + v.label.confidentiality + ", above the " + v.required.maxConfidentiality + " this app is cleared for"); });
      else list.push("confidentiality: every argument's data is within what the serving app is cleared for (in general words: the app's clearance is set by your admin and is not in this view)");
      if (integ.length) integ.forEach(function (v) { list.push("integrity: not met: " + what(v) + " is " + v.label.integrity + ", below the " + v.required.minIntegrity + " the policy asks of it"); });
      else list.push("integrity: every argument is at least as trusted as the policy asks of it (in general words: the required level is in the admin's policy)");
      (query.consents || []).filter(function (c) { return c.stepId === key || c.stepId.indexOf(key + "#") === 0 || c.stepId.indexOf(key + "@") === 0; }).forEach(function (c) {
        list.push("consent (" + c.kind + "): " + c.status + (c.scope ? ", " + c.scope : ""));
      });
    } else if (step.kind === "display") {
      var shown = query.display.filter(function (d) { return d.key === key; })[0];
      if (f.redaction) list.push("display: withheld, its label " + f.redaction.label.confidentiality + " is above the display policy's cap (" + f.redaction.required.maxConfidentiality + ")");
      else if (shown && shown.redacted) list.push("display: withheld, its label " + shown.label.confidentiality + " is above the display policy's cap");
      else list.push(shown ? "display: within the display policy's cap" + (label ? " (label " + labelText(label) + ")" : "") : "display: not reached");
    } else if (step.kind === "qllm") {
      list.push("a model reads its inputs without tools; its output keeps the inputs' labels");
    } else if (step.kind === "condition") {
      list.push("the branch taken depends on the condition: the steps in it carry the condition's label too");
    } else if (step.kind === "loop") {
      list.push("each pass of the body carries the label of the list it walks");
    }
    return el("ul", { class: "rules" }, list.map(function (r) { return el("li", { text: r }); }));
  }

  /**
   * The labels a step got at run time. A step inside a loop runs once per pass, under a key with
   * the pass's index (steps[1]#0.body[0]); its static path is steps[1].body[0]. A step run on every
   * serving app has one call per app, under its key and the app (steps[0]@cheapcab).
   */
  function runLabels(labels, key) {
    return Object.keys(labels).map(function (k) {
      var passes = [];
      var app = "";
      var bare = k.replace(/@(.*)$/, function (_, a) { app = a; return ""; });
      bare = bare.replace(/#(\d+)/g, function (_, n) { passes.push(n); return ""; });
      return bare === key && { pass: passes.join("."), app: app, label: labels[k] };
    }).filter(Boolean);
  }

  /** One step as a list item, with its nested steps (condition branches, loop body) under their keys. */
  function stepItem(step, key, query, labels, outs) {
    var got = runLabels(labels, key);
    var label = got.length === 1 ? got[0].label : null;
    if (step.out) outs[step.out] = { label: label };
    if (step.kind === "loop") outs[step.as] = { label: null };
    var args = Object.keys(step.args || step.inputs || {}).map(function (name) {
      return el("li", {}, [el("code", { text: name }), " from " + source((step.args || step.inputs)[name], outs)]);
    });
    if (step.kind === "display") args.push(el("li", { text: "shows " + source(step.value, outs) }));
    if (step.kind === "loop") args.push(el("li", { text: "walks " + source(step.over, outs) + " as " + step.as }));
    if (step.kind === "retrieve") args.push(el("li", { text: "reads saved data " + step.artifact }));
    if (step.kind === "tool" && step.providers === "all") args.push(el("li", { text: "runs on every app that serves it" }));
    var what = step.kind === "tool" ? step.tool : step.kind;
    var labelLine = step.providers === "all" && got.length
      ? "Label of each app's answer: " + got.map(function (g) { return (g.pass ? "#" + g.pass + " " : "") + g.app + " " + labelText(g.label); }).join("; ")
      : got.length > 1
        ? "Label of its value, per pass: " + got.map(function (g) { return "#" + g.pass + " " + labelText(g.label); }).join("; ")
        : "Label of its value: " + labelText(label);
    var parts = [
      el("h3", { text: key + ": " + what + (step.out ? " → " + step.out : "") + (step.title ? " “" + step.title + "”" : "") }),
      step.intent ? el("p", { text: "Intent: " + step.intent }) : null,
      step.kind === "condition" || (step.kind === "loop" && !step.out) ? null : el("p", { text: labelLine }),
      args.length ? el("ul", { class: "args", "aria-label": "Arguments" }, args) : null,
      el("p", { class: "rules-title", text: "Rules met:" }),
      rules(step, key, query, label),
    ];
    var nested = step.kind === "condition" ? [["then", "If the condition holds"], ["else", "Otherwise"]] : step.kind === "loop" ? [["body", "For each " + step.as]] : [];
    nested.forEach(function (n) {
      var inner = step[n[0]] || [];
      parts.push(el("p", { class: "branch", text: n[1] + " (" + key + "." + n[0] + "):" + (inner.length ? "" : " nothing") }));
      if (inner.length) parts.push(el("ol", { class: "nested", "aria-label": key + "." + n[0] }, inner.map(function (s, j) {
        return stepItem(s, key + "." + n[0] + "[" + j + "]", query, labels, outs);
      })));
    });
    return el("li", { class: "step", "data-key": key }, parts);
  }

  L.pages.plan = async function () {
    var sid = document.body.dataset.session, qid = document.body.dataset.query;
    var r = await L.api("GET", "/v1/sessions/" + sid + "/queries/" + qid);
    if (!r.ok) { L.$("plan-query").textContent = L.errorText(r); return; }
    var query = r.body;
    L.$("plan-query").appendChild(el("span", {}, ["You asked: ", el("q", { text: query.text }), " · status " + query.status + " · ", el("a", { href: "/console/sessions/" + sid, text: "back to the chat" })]));
    L.renderPlan(L.$("steps"), query);
    var trace = L.$("trace");
    query.trace.forEach(function (e) {
      trace.appendChild(el("li", {}, [el("time", { datetime: e.at, text: e.at.slice(11, 23) }), " " + e.type + " ", el("code", { text: JSON.stringify(e.data) })]));
    });
  };

  /** The verified plan of a query view into a list (exposed for the browser tests' stubbed plans). */
  L.renderPlan = function (list, query) {
    var labels = {};
    query.trace.forEach(function (e) { if (e.type === "step_finished" || e.type === "display" || e.type === "display_redacted") labels[e.data.key] = e.data.label; });
    var steps = (query.plan && query.plan.steps) || [];
    var outs = {};
    L.clear(list);
    if (!steps.length) list.appendChild(el("li", { text: "No verified plan" + (query.error ? ": " + query.error.message : " yet.") }));
    steps.forEach(function (step, i) { list.appendChild(stepItem(step, "steps[" + i + "]", query, labels, outs)); });
  };
})();
`;
