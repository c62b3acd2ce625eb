/**
 * The consent page: the one consent a chat product links to, answerable here. Signed in, it is
 * re-read on each of its query's events (it may be answered elsewhere) and shows the query below it.
 * From a consent link (`#link=<token>`), the person holds no Lattice credential: the link's token is
 * read from the fragment, the fragment is cleared at once, and the token is used as the Bearer of
 * this consent's own GET and POST only. It is never stored, and no other request carries it.
 */
import type { Lattice } from "@lattice/client";
import { api, call, clientFor, follow } from "./api.ts";
import { refresher } from "./chat.ts";
import { renderConsent } from "./consent.ts";
import { byId, clear, el } from "./dom.ts";
import type { Consent } from "./words.ts";

/** What a link token may look like: a bounded, URL-safe string (the API checks what it says). */
const LINK = /^#link=([A-Za-z0-9._~-]{16,2048})$/;

/** A consent link's token, taken out of the URL (the address bar, history, a copied URL keep none). */
export function takeLinkToken(): string | null {
  const m = LINK.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return m[1]!;
}

/** The one consent, with the given client: the list for a signed-in user, the consent alone from a link. */
async function readConsent(client: Lattice, sid: string, cid: string, link: string | null) {
  if (link) {
    // The link's grant names this one consent; the typed client's schema has no route for a single
    // consent's GET yet, so this one read is a plain same-origin fetch with the link as its Bearer.
    const res = await fetch(`/v1/sessions/${encodeURIComponent(sid)}/consents/${encodeURIComponent(cid)}`, {
      headers: { Authorization: `Bearer ${link}` },
    }).catch(() => null);
    if (!res) return { consent: null, error: "The consent could not be read (network)." };
    const body = (await res.json().catch(() => null)) as (Consent & { error?: { message?: string } }) | null;
    if (!res.ok) return { consent: null, error: body?.error?.message ?? `request failed (${res.status})` };
    return { consent: body, error: "" };
  }
  const r = await call(client.api.GET("/v1/sessions/{sid}/consents", { params: { path: { sid } } }));
  if (!r.ok || !r.data) return { consent: null, error: r.error };
  const consent = (r.data.consents as Consent[]).find((c) => c.id === cid) ?? null;
  return { consent, error: consent ? "" : "No such consent in this session." };
}

export async function consentPage(link: string | null): Promise<void> {
  const sid = document.body.dataset.session!;
  const cid = document.body.dataset.consent!;
  const target = byId("consent");
  const expired = () => {
    clear(target).appendChild(
      el("p", {
        class: "error",
        role: "alert",
        text: "This link no longer works: it expired or was used. Ask again in your chat.",
      }),
    );
  };
  const client = link ? clientFor(link, expired) : api();
  let following = false;
  let shown: string | null = null;
  const load = async (): Promise<void> => {
    const { consent, error } = await readConsent(client, sid, cid, link);
    if (!consent) {
      clear(target).appendChild(el("p", { class: "error", role: "alert", text: error }));
      return;
    }
    show(consent);
  };
  const show = (consent: Consent) => {
    // A pending dialog is kept while it stays pending: the person's choices in it survive.
    if (shown !== consent.status || consent.status !== "pending") {
      clear(target).appendChild(renderConsent(client, sid, consent, show));
    }
    shown = consent.status;
    if (link) {
      if (consent.status !== "pending") {
        byId("query").textContent =
          "Your answer is recorded. Your next message in the chat shows the outcome.";
      }
      return;
    }
    if (following) return;
    following = true;
    const refresh = refresher(byId("query"), sid, consent.queryId, { consents: false });
    follow(api(), sid, (e) => {
      if (e.queryId !== consent.queryId) return;
      refresh();
      if (e.type === "consent_requested" || e.type === "consent_answered") void load();
    });
    refresh();
  };
  if (link)
    byId("query").textContent = "You opened this from a link: answer here, then go back to your chat.";
  await load();
}
