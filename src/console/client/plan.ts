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

  /** The rules a step's flows met: the verifier's two for a tool, the display cap for a display. */
  function rules(step, key, query, outs) {
    var list = [];
    var violation = query.verdict && (query.verdict.violations || []).some(function (v) { return v.tool === step.tool; });
    if (step.kind === "tool") {
      list.push("confidentiality: every argument's data is within what the serving app is cleared for" + (violation ? " (not met: see the error)" : ""));
      list.push("integrity: every argument is at least as trusted as the policy asks of it");
      (query.consents || []).filter(function (c) { return c.stepId === key; }).forEach(function (c) {
        list.push("consent (" + c.kind + "): " + c.status + (c.scope ? ", " + c.scope : ""));
      });
    } else if (step.kind === "display") {
      var shown = query.display.filter(function (d) { return d.key === key; })[0];
      list.push(shown ? (shown.redacted ? "display: withheld, its label is above the display policy's cap" : "display: within the display policy's cap") : "display: not reached");
    } else if (step.kind === "qllm") {
      list.push("a model reads its inputs without tools; its output keeps the inputs' labels");
    }
    return el("ul", { class: "rules" }, list.map(function (r) { return el("li", { text: r }); }));
  }

  L.pages.plan = async function () {
    var sid = document.body.dataset.session, qid = document.body.dataset.query;
    var r = await L.api("GET", "/v1/sessions/" + sid + "/queries/" + qid);
    if (!r.ok) { L.$("plan-query").textContent = L.errorText(r); return; }
    var query = r.body;
    L.$("plan-query").appendChild(el("span", {}, ["You asked: ", el("q", { text: query.text }), " · status " + query.status + " · ", el("a", { href: "/console/sessions/" + sid, text: "back to the chat" })]));
    var labels = {};
    query.trace.forEach(function (e) { if (e.type === "step_finished" || e.type === "display" || e.type === "display_redacted") labels[e.data.key] = e.data.label; });
    var outs = {};
    var steps = (query.plan && query.plan.steps) || [];
    var list = L.$("steps");
    if (!steps.length) list.appendChild(el("li", { text: "No verified plan" + (query.error ? ": " + query.error.message : " yet.") }));
    steps.forEach(function (step, i) {
      var key = "steps[" + i + "]";
      if (step.out) outs[step.out] = { label: labels[key] };
      var args = Object.keys(step.args || {}).map(function (name) {
        return el("li", {}, [el("code", { text: name }), " from " + source(step.args[name], outs)]);
      });
      if (step.kind === "display") args.push(el("li", { text: "shows " + source(step.value, outs) }));
      list.appendChild(el("li", { class: "step" }, [
        el("h3", { text: key + ": " + (step.kind === "tool" ? step.tool : step.kind) + (step.out ? " → " + step.out : "") + (step.title ? " “" + step.title + "”" : "") }),
        step.intent ? el("p", { text: "Intent: " + step.intent }) : null,
        el("p", { text: "Label of its value: " + labelText(labels[key]) }),
        args.length ? el("ul", { class: "args", "aria-label": "Arguments" }, args) : null,
        el("p", { class: "rules-title", text: "Rules met:" }),
        rules(step, key, query, outs),
      ]));
    });
    var trace = L.$("trace");
    query.trace.forEach(function (e) {
      trace.appendChild(el("li", {}, [el("time", { datetime: e.at, text: e.at.slice(11, 23) }), " " + e.type + " ", el("code", { text: JSON.stringify(e.data) })]));
    });
  };
})();
`;
