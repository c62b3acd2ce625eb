/** Admin: the audit log, newest first, filtered by type and time, with older pages on request. */
export const AUDIT = String.raw`
(function () {
  var el = L.el;
  var PAGE = 200;

  L.pages.audit = async function () {
    var target = L.$("audit");
    var rows = null, oldest = null;
    function row(e) {
      return el("tr", {}, [el("td", { text: e.seq }), el("td", { text: e.at }), el("th", { scope: "row", text: e.type }), el("td", {}, [L.value(e.detail)])]);
    }
    /** One page newest first from the API (before the last page's oldest seq); the time filter is applied here. */
    async function page(fresh) {
      var since = L.$("audit-since").value.trim();
      var type = L.$("audit-type").value.trim().toLowerCase();
      var q = "/v1/admin/audit?order=desc&limit=" + PAGE + (type ? "&type=" + encodeURIComponent(type) : "") + (!fresh && oldest ? "&before=" + oldest : "");
      var r = await L.api("GET", q);
      if (!r.ok) { L.clear(target).appendChild(el("p", { class: "error", role: "alert", text: L.errorText(r) })); return; }
      var events = r.body.events;
      var done = events.length < PAGE;
      if (events.length) oldest = events[events.length - 1].seq;
      // "Since" is a seq or a time: the newest-first pages stop at it.
      var stop = since && (/^\d+$/.test(since) ? function (e) { return e.seq <= Number(since); } : function (e) { return e.at <= since; });
      if (stop && events.some(stop)) { events = events.filter(function (e) { return !stop(e); }); done = true; }
      if (fresh) {
        rows = el("tbody");
        L.clear(target).appendChild(el("table", {}, [
          el("thead", {}, [el("tr", {}, ["#", "Time", "Type", "Detail"].map(function (h) { return el("th", { scope: "col", text: h }); }))]),
          rows,
        ]));
        target.appendChild(el("button", { type: "button", id: "audit-more", onclick: function () { page(false); }, text: "Show older events" }));
      }
      events.forEach(function (e) { rows.appendChild(row(e)); });
      L.$("audit-more").hidden = done;
      var count = rows.children.length;
      L.$("audit-count").textContent = count + " event(s) shown, newest first" + (done ? "." : "; older ones on request.");
      L.say(L.$("audit-count").textContent);
    }
    L.$("audit-form").addEventListener("submit", function (e) { e.preventDefault(); oldest = null; page(true); });
    await page(true);
  };
})();
`;
