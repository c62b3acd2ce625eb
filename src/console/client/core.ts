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
  var WHY = "lattice.signed-out";
  var started = false;
  L.needs = body.dataset.needs;

  // A consent link's token (#link=lc.… on a consent page, from a chat): held here only, never stored.
  var consentLink = null;
  L.credential = function () { return consentLink || sessionStorage.getItem(STORE[L.needs]); };

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

  /**
   * A JSON value as readable text in a pre (strings as they are). A value Lattice withheld
   * ({withheld: true, label}) reads "withheld (<level>)", not as the marker's JSON.
   */
  L.value = function (v) {
    var MARK = "\u0000withheld:";
    function level(l) { return l && typeof l === "object" ? l.confidentiality : String(l); }
    function isWithheld(x) { return x && typeof x === "object" && x.withheld === true; }
    var text = isWithheld(v) ? "withheld (" + level(v.label) + ")"
      : typeof v === "string" ? v
      : JSON.stringify(v, function (k, x) { return isWithheld(x) ? MARK + level(x.label) + "\u0000" : x; }, 2)
        .replace(/"\\u0000withheld:([^"\\]*)\\u0000"/g, "withheld ($1)");
    return L.el("pre", { class: "value", text: text });
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
   * Each event: {seq, queryId, type, data, at}. A 401 signs out, a 429 waits its Retry-After, and a
   * frame that is not JSON is skipped (re-reading it would fail the same way forever).
   */
  L.stream = function (sid, onEvent) {
    var controller = new AbortController();
    var last = 0;
    (async function () {
      while (!controller.signal.aborted) {
        var wait = 1000;
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
                var lines = buffer.slice(0, end).split("\n");
                buffer = buffer.slice(end + 2);
                var id = lines.filter(function (l) { return l.indexOf("id: ") === 0; }).map(function (l) { return Number(l.slice(4)); })[0];
                if (id > last) last = id;
                var data = lines.filter(function (l) { return l.indexOf("data: ") === 0; }).map(function (l) { return l.slice(6); }).join("\n");
                if (!data) continue;
                var event;
                try { event = JSON.parse(data); } catch (e) { continue; }
                if (typeof event.seq === "number" && event.seq > last) last = event.seq;
                onEvent(event);
              }
            }
          } else if (res.status === 401) { L.signOut("Your sign-in expired or was refused; sign in again."); return; }
          else if (res.status === 404 || res.status === 403) return;
          else if (res.status === 429) wait = Math.max(1, Number(res.headers.get("Retry-After")) || 5) * 1000;
        } catch (e) {
          if (controller.signal.aborted) return;
        }
        await new Promise(function (r) { setTimeout(r, wait); });
      }
    })();
    return { stop: function () { controller.abort(); } };
  };

  /** Says something to screen readers in the page's one live region (created once, in the shell). */
  L.say = function (text) {
    var live = L.$("live");
    live.textContent = "";
    setTimeout(function () { live.textContent = text; }, 50);
  };

  /** Moves focus to the page's heading, so a keyboard user starts from the top of what changed. */
  L.focusMain = function () { var h = document.querySelector("main h1"); if (h) h.focus(); };

  /**
   * Signing out reloads the page: nothing of the last user (DOM, streams, listeners, timers) can
   * outlive it. The reason is carried over the reload in the tab's storage.
   */
  L.signOut = function (why) {
    if (L.signingOut) return;
    L.signingOut = true;
    if (consentLink) why = "This consent link has expired or was refused: send any message in your chat for a fresh one.";
    sessionStorage.removeItem(STORE[L.needs]);
    if (why) sessionStorage.setItem(WHY, why);
    // A chat session's address names the last user's session: the next user starts a new one.
    location.replace(body.dataset.page === "chat" ? "/console" : location.pathname);
  };

  function showSignIn(message) {
    L.$("content").hidden = true;
    L.$("signin").hidden = false;
    L.$("signout").hidden = true;
    L.$("who").textContent = "Not signed in";
    L.$("credential-error").textContent = message;
    L.$("credential").focus();
  }

  async function start(focus) {
    // Once per page load: a second sign-in goes through signOut's reload, never a second start.
    if (started) return;
    started = true;
    L.$("signin").hidden = true;
    L.$("content").hidden = false;
    L.$("signout").hidden = !!consentLink;
    var cred = L.credential();
    L.user = L.needs === "user" ? L.userOf(cred) : null;
    L.$("who").textContent = consentLink ? "Answering as " + L.user + " (from your chat's link)" : L.needs === "user" ? "Signed in as " + L.user : "Signed in with " + (L.needs === "admin" ? "an admin" : "a developer") + " key";
    var page = L.pages[body.dataset.page];
    if (focus) L.focusMain();
    if (page) await page();
  }

  /**
   * A chat product may hand a token over in the URL fragment (never sent to a server). Anyone can
   * make such a link with their own token (login CSRF): it is dropped from the URL at once and held
   * only in this script until the person confirms the user it names. Nothing is stored and no
   * request carries it before then; refusing leaves the tab as it was. Returns the token, if any.
   */
  function fromFragment() {
    var m = /^#token=(lu\.[A-Za-z0-9._-]+)$/.exec(location.hash);
    if (!m || L.needs !== "user") return null;
    history.replaceState(null, "", location.pathname + location.search);
    // The same token again (a reload, a second click) changes nothing: no question.
    return m[1] === sessionStorage.getItem(STORE.user) ? null : m[1];
  }

  var link = null;
  // What the API lets a token name: the question shows nothing a real token could not say.
  var USER_ID = /^[A-Za-z0-9_-]{1,128}$/, TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

  /** Asks whether to sign in with a link's token, in the page; nothing uses it before the answer. */
  function askAboutLink(token) {
    var user = L.userOf(token), tenant = token.split(".")[1], current = L.credential();
    if (typeof user !== "string" || !USER_ID.test(user) || !TENANT_ID.test(tenant)) {
      if (started) return;
      if (current) start(false);
      else showSignIn("The link's sign-in could not be read; sign in here.");
      return;
    }
    link = token;
    L.$("signin").hidden = true;
    L.$("content").hidden = true;
    L.$("link-signin").hidden = false;
    L.$("link-user").textContent = user;
    L.$("link-tenant").textContent = tenant;
    L.$("link-continue").textContent = "Continue as " + user;
    var now = L.$("link-current");
    now.hidden = !current;
    now.textContent = current ? "This tab is signed in as " + L.userOf(current) + " (tenant " +
      current.split(".")[1] + "); that stays if you don't sign in." : "";
    if (!started) L.$("who").textContent = current ? "Signed in as " + L.userOf(current) : "Not signed in";
    L.$("link-signin-title").focus();
  }

  function answerLink(accept) {
    var token = link;
    link = null;
    L.$("link-signin").hidden = true;
    if (accept && token) {
      sessionStorage.setItem(STORE.user, token);
      // A page that already ran for someone else starts over: nothing of theirs outlives it.
      if (started) location.reload();
      else start(true);
      return;
    }
    if (started) { L.$("content").hidden = false; L.focusMain(); }
    else if (L.credential()) start(true);
    else showSignIn("");
    L.say("Not signed in from the link.");
  }

  L.boot = function () {
    if (L.needs === "user") {
      L.$("link-continue").addEventListener("click", function () { answerLink(true); });
      L.$("link-refuse").addEventListener("click", function () { answerLink(false); });
    }
    // A link to this same page with a token changes only the fragment: no load runs boot again.
    window.addEventListener("hashchange", function () {
      var token = fromFragment();
      if (token) askAboutLink(token);
    });
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
      start(true);
    });
    L.$("signout").addEventListener("click", function () { L.signOut(""); });
    // A consent link answers this page's one consent: dropped from the address bar at once, no question
    // asked (it signs in to nothing and is kept nowhere), and no other request may carry it.
    var linked = body.dataset.page === "consent" && /^#link=(lc\.[A-Za-z0-9._-]+)$/.exec(location.hash);
    if (linked) {
      history.replaceState(null, "", location.pathname + location.search);
      consentLink = linked[1];
      L.viaLink = true;
      start(true);
      return;
    }
    var why = sessionStorage.getItem(WHY) || "";
    sessionStorage.removeItem(WHY);
    var token = fromFragment();
    if (token) askAboutLink(token);
    else if (L.credential()) start(false);
    else showSignIn(why);
  };
})();
`;
