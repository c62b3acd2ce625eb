import type { Child } from "hono/jsx";

/** Which credential a page needs: the signed-in user's token, or an admin's or developer's key. */
export type Needs = "user" | "admin" | "developer";

const NAV: Array<{ href: string; label: string; needs: Needs }> = [
  { href: "/console", label: "Chat", needs: "user" },
  { href: "/console/data", label: "My data", needs: "user" },
  { href: "/console/admin", label: "Admin: apps", needs: "admin" },
  { href: "/console/admin/catalog", label: "Catalog", needs: "admin" },
  { href: "/console/admin/policy", label: "Policy", needs: "admin" },
  { href: "/console/admin/audit", label: "Audit log", needs: "admin" },
  { href: "/console/developer", label: "Developer", needs: "developer" },
];

const SIGN_IN: Record<Needs, { label: string; hint: string }> = {
  user: {
    label: "User token",
    hint: "The token your chat product issued for you (it starts with lu.). Never paste an API key here.",
  },
  admin: { label: "Admin key", hint: "A tenant API key of role admin (it starts with lk.)." },
  developer: { label: "Developer key", hint: "A tenant API key of role developer (it starts with lk.)." },
};

export interface PageProps {
  title: string;
  /** The client script's page (document.body.dataset.page). */
  page: string;
  needs: Needs;
  /** Route parameters the script reads (already checked by the route's pattern). */
  data?: Record<string, string>;
  children?: Child;
}

/**
 * Every page: a shell the script fills from the public API once signed in. Nothing in it is secret
 * or per-user; the credential lives in the tab's sessionStorage, never in the HTML or a cookie.
 */
export function Layout(props: PageProps) {
  const attrs = Object.fromEntries(Object.entries(props.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  const signIn = SIGN_IN[props.needs];
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Lattice console`}</title>
        <link rel="stylesheet" href="/console/static/console.css" />
        <script src="/console/static/console.js" defer></script>
      </head>
      <body data-page={props.page} data-needs={props.needs} {...attrs}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <p class="brand">Lattice console</p>
          <nav aria-label="Console">
            <ul>
              {NAV.map((n) => (
                <li>
                  <a href={n.href}>{n.label}</a>
                </li>
              ))}
            </ul>
          </nav>
          <p id="who" role="status"></p>
          <button id="signout" type="button" hidden>
            Sign out
          </button>
        </header>
        <main id="main" tabindex={-1}>
          {/* Focus lands here after a sign-in or an action that replaces what was focused. */}
          <h1 tabindex={-1}>{props.title}</h1>
          {/* The one live region: announcements are written into it, never re-created nodes. */}
          <p id="live" class="visually-hidden" role="status" aria-live="polite"></p>
          <section id="signin" aria-labelledby="signin-title" hidden>
            <h2 id="signin-title">Sign in</h2>
            <form id="signin-form">
              <label for="credential">{signIn.label}</label>
              <input
                id="credential"
                name="credential"
                type="password"
                autocomplete="off"
                required
                aria-describedby="credential-hint credential-error"
              />
              <p id="credential-hint" class="hint">
                {signIn.hint}
              </p>
              <p id="credential-error" class="error" role="alert"></p>
              <button type="submit">Sign in</button>
            </form>
          </section>
          {props.needs === "user" && <LinkSignIn />}
          <div id="content" hidden>
            {props.children}
          </div>
          <noscript>
            <p>The console needs JavaScript; everything it does is also in the HTTP API (/docs).</p>
          </noscript>
        </main>
      </body>
    </html>
  );
}

/**
 * The question a sign-in link asks before its token is kept or used: anyone can make such a link
 * with their own token (login CSRF), so the person confirms the user it names. Lattice's words are
 * here; the script fills in only what the token says (user, tenant) and who is signed in now.
 */
function LinkSignIn() {
  return (
    <section id="link-signin" class="consent" aria-labelledby="link-signin-title" hidden>
      <h2 id="link-signin-title" tabindex={-1}>
        Sign in from a link?
      </h2>
      <p>
        The link you opened would sign this tab in as the user below. Continue only if this is you: anyone can
        make such a link for their own account, and what you then ask or allow would be done in theirs.
      </p>
      <dl class="facts">
        <dt>User</dt>
        <dd id="link-user" class="named"></dd>
        <dt>Tenant</dt>
        <dd id="link-tenant" class="named"></dd>
        <dt>From</dt>
        <dd>a link (its sign-in is not kept until you continue)</dd>
      </dl>
      <p id="link-current" hidden></p>
      <button id="link-continue" type="button"></button>
      <button id="link-refuse" type="button">
        Don't sign in
      </button>
    </section>
  );
}
