/**
 * The consent page: the one consent a chat product links to, answerable here. Signed in, it is
 * re-read on each of its query's events (it may be answered elsewhere) and shows the query below it.
 * From a consent link (`#link=lc.…`, from a chat), the person holds no Lattice credential: the token
 * is read from the fragment, the fragment is cleared at once, and the token is used as the Bearer of
 * this consent's own GET and POST only. It is never stored, and no other request carries it.
 */
import type { Lattice } from "@lattice/client";
import { api, call, clientFor, follow } from "./api.ts";
import { refresher } from "./chat.ts";
import { renderConsent } from "./consent.ts";
import { byId, clear, el } from "./dom.ts";
import type { Consent } from "./words.ts";

/** A consent link's token (credentials.ts: `lc.<tenant>.<payload>.<tag>`; the API checks it). */
const LINK = /^#link=(lc\.[A-Za-z0-9._-]+)$/;

/** A consent link's token, taken out of the URL (the address bar, history, a copied URL keep none). */
export function takeLinkToken(): string | null {
  const m = LINK.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return m[1]!;
}

/** The one consent (a consent link reads its own, answered or not; a user token reads any of theirs). */
async function readConsent(client: Lattice, sid: string, cid: string) {
  const r = await call(
    client.api.GET("/v1/sessions/{sid}/consents/{cid}", { params: { path: { sid, cid } } }),
  );
  if (r.status === 404) return { consent: null, error: "No such consent in this session." };
  if (!r.ok || !r.data) return { consent: null, error: r.error };
  return { consent: r.data as Consent, error: "" };
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
        text: "This consent link has expired or was refused: send any message in your chat for a fresh one.",
      }),
    );
  };
  const client = link ? clientFor(link, expired) : api();
  let following = false;
  let shown: string | null = null;
  const load = async (): Promise<void> => {
    const { consent, error } = await readConsent(client, sid, cid);
    if (!consent) {
      clear(target).appendChild(el("p", { class: "error", role: "alert", text: error }));
      return;
    }
    show(consent);
  };
  const show = (consent: Consent) => {
    if (link) showRequest(consent);
    // A pending dialog is kept while it stays pending: the person's choices in it survive.
    if (shown !== consent.status || consent.status !== "pending") {
      clear(target).appendChild(renderConsent(client, sid, consent, show));
    }
    shown = consent.status;
    // A link reaches this consent only (no stream, no query): the outcome shows in the chat.
    if (link) return;
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
  /** The request this consent is for, in the user's words (quoted): what tells two links apart. */
  const showRequest = (consent: Consent) => {
    // Typed here as well: the generated client's Consent has it, an older build's may not.
    const text = (consent as Consent & { request?: { text: string } }).request?.text;
    const asked = new Date(consent.createdAt);
    const when = Number.isNaN(asked.getTime()) ? "" : ` (asked ${asked.toLocaleString()})`;
    clear(byId("query")).append(
      ...(text ? [el("p", { class: "query-text" }, ["You asked: ", el("q", { text })])] : []),
      el("p", {
        class: "hint",
        text: `Your chat shows the outcome${when}: once you have answered here, send any message there.`,
      }),
    );
  };
  if (link) {
    byId("query").textContent =
      "Your chat shows the outcome: once you have answered here, send any message there.";
  }
  await load();
}
