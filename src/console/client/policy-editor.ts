/**
 * Admin: the policy editor, with the API's validation errors shown at their field. A field is a
 * path such as `body.tools["contacts.list"].output.integrity`: it is parsed (bracket-quoted keys,
 * indices) and found in the text by a small JSON tokenizer that records where each path starts, so
 * a key with a dot in it, or a name that also appears earlier, still lands on the right field.
 */
export const POLICY_EDITOR = String.raw`
(function () {
  var el = L.el;
  var SEP = "\u0000";

  /** A field path as its segments (strings; indices as their digits), the "body" prefix dropped. */
  L.pathSegments = function (field) {
    var rest = field.replace(/^body/, "");
    if (rest && rest[0] !== "." && rest[0] !== "[") rest = "." + rest;
    var out = [], m, re = /\.([^.\[]+)|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]/y;
    while (re.lastIndex < rest.length && (m = re.exec(rest))) {
      out.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? JSON.parse('"' + m[2] + '"') : m[3]);
    }
    return out;
  };

  /**
   * Every path in a JSON text -> [start, end]: an object member's key (with its quotes), an array
   * element's value. Text that is not JSON yields what was read before the fault.
   */
  L.jsonPaths = function (text) {
    var at = {}, i = 0;
    function ws() { while (i < text.length && /\s/.test(text[i])) i++; }
    function str() {
      var start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      return { start: start, end: i, value: JSON.parse(text.slice(start, i)) };
    }
    function value(path) {
      ws();
      if (text[i] === "{") {
        i++; ws();
        if (text[i] === "}") { i++; return; }
        for (;;) {
          ws();
          var k = str(), p = path.concat([k.value]);
          at[p.join(SEP)] = [k.start, k.end];
          ws(); i++; // the colon
          value(p);
          ws();
          if (text[i++] !== ",") return;
        }
      } else if (text[i] === "[") {
        i++; ws();
        if (text[i] === "]") { i++; return; }
        for (var n = 0; ; n++) {
          ws();
          var q = path.concat([String(n)]), start = i;
          value(q);
          at[q.join(SEP)] = [start, i];
          ws();
          if (text[i++] !== ",") return;
        }
      } else if (text[i] === '"') str();
      else while (i < text.length && /[^\s,\]}]/.test(text[i])) i++;
    }
    try { value([]); } catch (e) {}
    return at;
  };

  /** Selects the field an error names (or its nearest enclosing field that is in the text). */
  function goTo(field) {
    var text = L.$("policy-text");
    var at = L.jsonPaths(text.value);
    var segs = L.pathSegments(field), span = null;
    for (var n = segs.length; n > 0 && !span; n--) span = at[segs.slice(0, n).join(SEP)] || null;
    text.focus();
    if (!span) return;
    text.setSelectionRange(span[0], span[1]);
    // A textarea does not scroll to a selection made by script: bring its line into view.
    var line = text.value.slice(0, span[0]).split("\n").length;
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
})();
`;
