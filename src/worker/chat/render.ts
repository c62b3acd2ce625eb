import type { QueryView } from "../../objects/hub/view.ts";

/**
 * A query as chat text, for every chat adapter. Chat frontends render assistant text as Markdown,
 * so nothing but Lattice's own words is written as Markdown: an untrusted value (an app's answer,
 * or a model's reading of one) is quoted in a code fence it cannot close, and every other word
 * that is not Lattice's (a title the planner wrote, the query's text, app and functionality names,
 * a trusted value) in a code span. Neither can pass for Lattice's own words, nor become a link or
 * an image that sends data away.
 */

type Display = QueryView["display"][number];
type Consent = QueryView["consents"][number];

/** Where the chat's consents are answered: the console's page for each. */
export interface ConsentLinks {
  consoleBase: string;
  sid: string;
  /** A consent link's token by consent id (chat/consent-links.ts), carried in the URL's fragment. */
  tokens?: Record<string, string>;
}

/** The fragment never reaches a server (nor its logs): the console's script reads it and drops it. */
export const consentLink = (links: ConsentLinks, consentId: string) => {
  const token = links.tokens?.[consentId];
  return `${links.consoleBase}/sessions/${links.sid}/consents/${consentId}${token ? `#link=${token}` : ""}`;
};

export function pendingConsents(query: QueryView): Consent[] {
  return query.consents.filter((c) => c.status === "pending");
}

/** A fence longer than any backtick run in the text, so nothing inside ends it. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Inline text as a code span a backtick inside cannot end: no Markdown in it is live. */
export function inert(text: string): string {
  const flat = text.replace(/[\r\n]+/g, " ");
  const longest = Math.max(0, ...Array.from(flat.matchAll(/`+/g), (m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks} ${flat} ${ticks}`;
}

function renderItem(item: Display): string {
  const title = item.title ? `${inert(item.title)}: ` : "";
  if (item.redacted) return `${title}[withheld]`;
  const value = typeof item.value === "string" ? item.value : JSON.stringify(item.value ?? null);
  if (!item.untrusted) return `${title}${inert(value)}`;
  const from = item.provenance.apps.length
    ? `from ${item.provenance.apps.map(inert).join(", ")}`
    : "from an app";
  return `(unverified, ${from}) ${title}\n${fenced(value)}`;
}

/** The assistant's text for a query that finished, waits for the user, or is still going. */
export function renderQuery(query: QueryView, links: ConsentLinks): string {
  const pending = pendingConsents(query);
  if (pending.length) {
    return [
      "Lattice needs your answer before this request can go on:",
      ...pending.map((c) => `- ${asked(c)}: ${consentLink(links, c.id)}`),
      `Open the link to see exactly what would be shared or done, and answer there (or POST /v1/sessions/${links.sid}/consents/{id}). Then send any message here to see the outcome. A reply in this chat is never taken as your answer.`,
    ].join("\n");
  }
  if (query.status === "failed" || query.status === "rejected") {
    // The error passed the display boundary (shown-error.ts), and is still written inert here.
    const error = query.error ?? { code: query.status, message: `the query was ${query.status}` };
    return `Lattice could not answer (${inert(error.code)}): ${inert(error.message)}`;
  }
  if (query.status !== "completed") {
    return `The request is still ${query.status}; send any message here to see how it went (or follow it at GET /v1/sessions/${links.sid}/queries/${query.id}).`;
  }
  return query.display.length ? query.display.map(renderItem).join("\n") : "(nothing to display)";
}

/** A turn that reports on the request an earlier turn left open: the new message is not run. */
export function renderResumed(query: QueryView, links: ConsentLinks): string {
  const earlier = `Your earlier request (${inert(clip(query.text))})`;
  const expired = query.error?.code === "consent_expired";
  const head = pendingConsents(query).length
    ? `${earlier} still waits for your answer; this message was not run.`
    : !isFinal(query.status)
      ? `${earlier} is still going on; this message was not run.`
      : expired
        ? `${earlier} ended: nobody answered in time; this message was not run (send it again to ask it):`
        : `${earlier} went on after your answer; this message was not run (send it again to ask it):`;
  return `${head}\n${renderQuery(query, links)}`;
}

export const isFinal = (status: string) =>
  status === "completed" || status === "failed" || status === "rejected";

export const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** A consent in words: its kind, the functionality, the app that would receive it. */
export function asked(c: Consent): string {
  const to = c.to ? ` with ${inert(c.to)}` : "";
  const what: Record<string, string> = {
    irreversible: "an action that cannot be undone",
    data_share: "sharing data",
    endorse: "a call on data below the policy's trust floor",
    app_selection: "choosing the app",
    collaboration: "an app asking another app",
    authorize: "signing in to an app",
  };
  return `${what[c.kind] ?? inert(c.kind)}: ${inert(c.functionality)}${to} (consent ${c.id})`;
}
