import type { QueryView } from "../../objects/hub/view.ts";

/**
 * A query as chat text, for every chat adapter. Chat frontends render assistant text as Markdown,
 * so an untrusted value (an app's answer, or a model's reading of one) is quoted in a code fence it
 * cannot close: it can neither pass for Lattice's own words on a line of its own nor become a link or
 * an image that sends data away.
 */

type Display = QueryView["display"][number];
type Consent = QueryView["consents"][number];

/** Where the chat's consents are answered: the console's page for each. */
export interface ConsentLinks {
  consoleBase: string;
  sid: string;
}

export const consentLink = (links: ConsentLinks, consentId: string) =>
  `${links.consoleBase}/sessions/${links.sid}/consents/${consentId}`;

export function pendingConsents(query: QueryView): Consent[] {
  return query.consents.filter((c) => c.status === "pending");
}

/** A fence longer than any backtick run in the text, so nothing inside ends it. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

function renderItem(item: Display): string {
  const title = item.title ? `${item.title}: ` : "";
  if (item.redacted) return `${title}[withheld]`;
  const value = typeof item.value === "string" ? item.value : JSON.stringify(item.value ?? null);
  if (!item.untrusted) return `${title}${value}`;
  const from = item.provenance.apps.length ? `from ${item.provenance.apps.join(", ")}` : "from an app";
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
    const error = query.error ?? { code: query.status, message: `the query was ${query.status}` };
    return `Lattice could not answer (${error.code}): ${error.message}`;
  }
  if (query.status !== "completed") {
    return `The request is still ${query.status}; send any message here to see how it went (or follow it at GET /v1/sessions/${links.sid}/queries/${query.id}).`;
  }
  return query.display.length ? query.display.map(renderItem).join("\n") : "(nothing to display)";
}

/** A turn that reports on the request an earlier turn left open: the new message is not run. */
export function renderResumed(query: QueryView, links: ConsentLinks): string {
  const earlier = `Your earlier request ("${clip(query.text)}")`;
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

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** A consent in words: its kind, the functionality, the app that would receive it. */
export function asked(c: Consent): string {
  const to = c.to ? ` with ${c.to}` : "";
  const what: Record<string, string> = {
    irreversible: "an action that cannot be undone",
    data_share: "sharing data",
    endorse: "a call on data below the policy's trust floor",
    app_selection: "choosing the app",
    collaboration: "an app asking another app",
    authorize: "signing in to an app",
  };
  return `${what[c.kind] ?? c.kind}: ${c.functionality}${to} (consent ${c.id})`;
}
