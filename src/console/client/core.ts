/**
 * The browser half of every page, as served (no build step): the credential in sessionStorage, the
 * public API over same-origin fetch, DOM built with textContent only (app and model text is never
 * parsed as HTML), and the session event stream read from fetch (EventSource cannot send a bearer).
 * Plain ES2020 in a string: it is served, not bundled.
 */
export const CORE = String.raw`"use strict";
var L = { pages: {} };
(function () {
  var body = document.body;
  var STORE = { user: "lattice.user", admin: "lattice.admin", developer: "lattice.developer" };
  L.needs = body.dataset.needs;

  L.credential = function () { return sessionStorage.getItem(STORE[L.needs]); };

  /** The user a token names (for paths and the header only: the API checks the token itself). */
  L.userOf = function (token) {
    try {
      var p = token.split(".")[2].replace(/-/g, "+").replace(/_/g, "/");
      return JSON.parse(atob(p)).u;
    } catch (e) { return null; }
  };

  /** An element with attributes and children; strings become text nodes, never markup. */
  L.el = function (tag, attrs, children) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return node;
  };
  L.clear = function (node) { while (node.firstChild) node.removeChild(node.firstChild); return node; };
  L.$ = function (id) { return document.getElementById(id); };

  /** A JSON value as readable text in a pre (strings as they are). */
  L.value = function (v) {
    return L.el("pre", { class: "value", text: typeof v === "string" ? v : JSON.stringify(v, null, 2) });
  };

  /** One call to the public API with the page's credential; a 401 signs out. */
  L.api = async function (method, path, payload) {
    var headers = { Authorization: "Bearer " + L.credential() };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    var res = await fetch(path, { method: method, headers: headers, body: payload === undefined ? undefined : JSON.stringify(payload) });
    var json = null;
    try { json = await res.json(); } catch (e) {}
    if (res.status === 401) { L.signOut("Your sign-in expired or was refused; sign in again."); }
    return { ok: res.ok, status: res.status, body: json };
  };
  L.errorText = function (r) {
    return (r.body && r.body.error && r.body.error.message) || ("request failed (" + r.status + ")");
  };

  /**
   * The session's server-sent events, resumed with Last-Event-ID after any break, until stop().
   * Each event: {seq, queryId, type, data, at}.
   */
  L.stream = function (sid, onEvent) {
    var controller = new AbortController();
    var last = 0;
    (async function () {
      while (!controller.signal.aborted) {
        try {
          var res = await fetch("/v1/sessions/" + sid + "/events", {
            headers: { Authorization: "Bearer " + L.credential(), Accept: "text/event-stream", "Last-Event-ID": String(last) },
            signal: controller.signal,
          });
          if (res.ok && res.body) {
            var reader = res.body.getReader();
            var decoder = new TextDecoder();
            var buffer = "";
            for (;;) {
              var chunk = await reader.read();
              if (chunk.done) break;
              buffer += decoder.decode(chunk.value, { stream: true });
              var end;
              while ((end = buffer.indexOf("\n\n")) >= 0) {
                var frame = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                var data = frame.split("\n").filter(function (l) { return l.indexOf("data: ") === 0; }).map(function (l) { return l.slice(6); }).join("\n");
                if (!data) continue;
                var event = JSON.parse(data);
                last = event.seq;
                onEvent(event);
              }
            }
          } else if (res.status === 401 || res.status === 404) return;
        } catch (e) {
          if (controller.signal.aborted) return;
        }
        await new Promise(function (r) { setTimeout(r, 1000); });
      }
    })();
    return { stop: function () { controller.abort(); } };
  };

  L.signOut = function (why) {
    sessionStorage.removeItem(STORE[L.needs]);
    showSignIn(why || "");
  };

  function showSignIn(message) {
    L.$("content").hidden = true;
    L.$("signin").hidden = false;
    L.$("signout").hidden = true;
    L.$("who").textContent = "Not signed in";
    L.$("credential-error").textContent = message;
    L.$("credential").focus();
  }

  async function start() {
    L.$("signin").hidden = true;
    L.$("content").hidden = false;
    L.$("signout").hidden = false;
    var cred = L.credential();
    L.user = L.needs === "user" ? L.userOf(cred) : null;
    L.$("who").textContent = L.needs === "user" ? "Signed in as " + L.user : "Signed in with " + (L.needs === "admin" ? "an admin" : "a developer") + " key";
    var page = L.pages[body.dataset.page];
    if (page) await page();
  }

  /** A chat product may hand a token over in the URL fragment (never sent to a server); it is moved into the tab. */
  function fromFragment() {
    var m = /^#token=(lu\.[A-Za-z0-9._-]+)$/.exec(location.hash);
    if (!m || L.needs !== "user") return;
    sessionStorage.setItem(STORE.user, m[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }

  L.boot = function () {
    fromFragment();
    L.$("signin-form").addEventListener("submit", function (e) {
      e.preventDefault();
      var value = L.$("credential").value.trim();
      var isToken = value.indexOf("lu.") === 0;
      if (L.needs === "user" && !isToken) {
        L.$("credential-error").textContent = "That is not a user token. A frontend key never belongs in a browser.";
        return;
      }
      if (L.needs !== "user" && value.indexOf("lk.") !== 0) {
        L.$("credential-error").textContent = "That is not an API key (it starts with lk.).";
        return;
      }
      sessionStorage.setItem(STORE[L.needs], value);
      L.$("credential").value = "";
      start();
    });
    L.$("signout").addEventListener("click", function () { L.signOut(""); });
    if (L.credential()) start();
    else showSignIn("");
  };
})();
`;
