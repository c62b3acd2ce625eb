/**
 * Signing a page in: by its form, or from a sign-in link (`#token=lu.…`) once the person confirms
 * the user it names, or (the consent page) from a consent link (`#link=…`) used for that consent
 * alone. Then the page's own part runs with the signed-in user.
 */
import { credential, needs, STORE, signOut, takeSignOutReason } from "./api.ts";
import { byId, focusMain, say } from "./dom.ts";

export type Page = (user: string | null) => Promise<void>;

/** Reads a user token's user (for paths and the header only: the API checks the token itself). */
export function userOf(token: string): string | null {
  try {
    const p = token.split(".")[2]!.replace(/-/g, "+").replace(/_/g, "/");
    const u = (JSON.parse(atob(p)) as { u?: unknown }).u;
    return typeof u === "string" ? u : null;
  } catch {
    return null;
  }
}

// What the API lets a token name: the question shows nothing a real token could not say.
const USER_ID = /^[A-Za-z0-9_-]{1,128}$/;
const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A consent link's display name (`n`: what the chat frontend forwarded), for the header only. */
export function linkNameOf(token: string): string | null {
  try {
    const p = token.split(".")[2]!.replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(p), (ch) => ch.charCodeAt(0));
    const n = (JSON.parse(new TextDecoder().decode(bytes)) as { n?: unknown }).n;
    return typeof n === "string" && n ? n : null;
  } catch {
    return null;
  }
}

/** A consent link: the page it opens and the user its token names (for the header only). */
export interface LinkMode {
  user: string | null;
  /** The user's display name, when the chat forwarded one: shown instead of the user's id. */
  name?: string | null;
  run(): Promise<void>;
}

export function boot(page: Page | undefined, linkMode?: LinkMode): void {
  let started = false;
  let link: string | null = null;
  const userPage = needs() === "user";

  function showSignIn(message: string) {
    byId("content").hidden = true;
    byId("signin").hidden = false;
    byId("signout").hidden = true;
    byId("who").textContent = "Not signed in";
    byId("credential-error").textContent = message;
    byId("credential").focus();
  }

  async function start(focus: boolean) {
    // Once per page load: a second sign-in goes through signOut's reload, never a second start.
    if (started) return;
    started = true;
    byId("signin").hidden = true;
    byId("content").hidden = false;
    byId("signout").hidden = false;
    const user = userPage ? userOf(credential() ?? "") : null;
    byId("who").textContent = userPage
      ? `Signed in as ${user}`
      : `Signed in with ${needs() === "admin" ? "an admin" : "a developer"} key`;
    if (focus) focusMain();
    if (page) await page(user);
  }

  /**
   * A chat product may hand a token over in the URL fragment (never sent to a server). Anyone can
   * make such a link with their own token (login CSRF): it is dropped from the URL at once and held
   * only here until the person confirms the user it names. Nothing is stored and no request carries
   * it before then; refusing leaves the tab as it was.
   */
  function fromFragment(): string | null {
    const m = /^#token=(lu\.[A-Za-z0-9._-]+)$/.exec(location.hash);
    if (!m || !userPage) return null;
    history.replaceState(null, "", location.pathname + location.search);
    // The same token again (a reload, a second click) changes nothing: no question.
    return m[1] === sessionStorage.getItem(STORE.user) ? null : m[1]!;
  }

  // link-signin.test.ts's control patches the served script at `function askAboutLink(token) {`: a
  // name that would shadow `token` here makes esbuild rename the parameter, and the control miss.
  function askAboutLink(token: string) {
    const user = userOf(token);
    const tenant = token.split(".")[1] ?? "";
    const current = credential();
    if (user === null || !USER_ID.test(user) || !TENANT_ID.test(tenant)) {
      if (started) return;
      if (current) void start(false);
      else showSignIn("The link's sign-in could not be read; sign in here.");
      return;
    }
    link = token;
    byId("signin").hidden = true;
    byId("content").hidden = true;
    byId("link-signin").hidden = false;
    byId("link-user").textContent = user;
    byId("link-tenant").textContent = tenant;
    byId("link-continue").textContent = `Continue as ${user}`;
    const now = byId("link-current");
    now.hidden = !current;
    now.textContent = current
      ? `This tab is signed in as ${userOf(current)} (tenant ${current.split(".")[1]}); that stays if you don't sign in.`
      : "";
    if (!started) byId("who").textContent = current ? `Signed in as ${userOf(current)}` : "Not signed in";
    byId("link-signin-title").focus();
  }

  function answerLink(accept: boolean) {
    const token = link;
    link = null;
    byId("link-signin").hidden = true;
    if (accept && token) {
      sessionStorage.setItem(STORE.user, token);
      // A page that already ran for someone else starts over: nothing of theirs outlives it.
      if (started) location.reload();
      else void start(true);
      return;
    }
    if (started) {
      byId("content").hidden = false;
      focusMain();
    } else if (credential()) void start(true);
    else showSignIn("");
    say("Not signed in from the link.");
  }

  if (userPage) {
    byId("link-continue").addEventListener("click", () => answerLink(true));
    byId("link-refuse").addEventListener("click", () => answerLink(false));
  }
  // A link to this same page with a token changes only the fragment: no load runs boot again.
  window.addEventListener("hashchange", () => {
    const handed = fromFragment();
    if (handed) askAboutLink(handed);
  });
  byId("signin-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = byId<HTMLInputElement>("credential");
    const value = input.value.trim();
    if (userPage && !value.startsWith("lu.")) {
      byId("credential-error").textContent =
        "That is not a user token. A frontend key never belongs in a browser.";
      return;
    }
    if (!userPage && !value.startsWith("lk.")) {
      byId("credential-error").textContent = "That is not an API key (it starts with lk.).";
      return;
    }
    sessionStorage.setItem(STORE[needs()], value);
    input.value = "";
    void start(true);
  });
  byId("signout").addEventListener("click", () => signOut(""));
  const why = takeSignOutReason();
  // A consent link answers one consent without signing the tab in: no form, nothing stored.
  if (linkMode) {
    byId("signin").hidden = true;
    byId("content").hidden = false;
    // The display name is the chat's (its user's own): quoted, it is data, never Lattice's words.
    byId("who").textContent = linkMode.name
      ? `Answering as “${linkMode.name}” (from your chat's link)`
      : `Answering as ${linkMode.user ?? "the link's user"} (from your chat's link)`;
    // Every other page needs a sign-in this person does not have: the menu would only lead there.
    const nav = document.querySelector<HTMLElement>("header nav");
    if (nav) nav.hidden = true;
    void linkMode.run();
    return;
  }
  const handed = fromFragment();
  if (handed) askAboutLink(handed);
  else if (credential()) void start(false);
  else showSignIn(why);
}
