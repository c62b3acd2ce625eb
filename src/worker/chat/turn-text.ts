import type { QueryView } from "../../objects/hub/view.ts";
import type { ConsentView } from "../../runtime/consent-view.ts";
import {
  asked,
  type ConsentLinks,
  clip,
  consentLink,
  inert,
  isFinal,
  pendingConsents,
  plain,
  renderQuery,
} from "./render.ts";

/**
 * A chat turn's text as a person reads it in a Markdown chat (Open WebUI renders with `marked`, GFM,
 * line breaks kept): a consent turn short enough to read (what would happen, the values that are
 * not the user's words with their source, one "Review and answer" link), and the outcome of an
 * earlier request in words before the answer to the new message. Nothing about the API: the person
 * reading is a chat's user. Every value is quoted as data with every Markdown character escaped, and
 * says whose words it is, so no app text passes for Lattice's words or becomes a link.
 */

type Consent = QueryView["consents"][number];

/** A value as data: escaped (no link, emphasis or HTML in it is live) and in quotation marks. */
export const quoted = (value: string) => `“${plain(value)}”`;

/** The views whose values say what would happen (action's `will`); any other is said by its title. */
const SAID_BY_VALUES = new Set(["mail", "payment", "booking", "share"]);

/**
 * What the consent would do, in one sentence of Lattice's words (from the view's values where its
 * kind has them), why it asks; then the assessment's own reasons, said as such.
 */
function willHappen(c: Consent): string {
  if (!c.view) return `Lattice asks before ${plain(asked(c).replace(/`/g, ""))}.`;
  const reasons = c.assessment?.reasons ?? [];
  const lead = reasons.reduce((r, x) => r.replace(`; ${x}`, ""), c.view.reason).replace(/[.\s]+$/, "");
  const by = c.view.app ? ` by the app ${quoted(c.view.app)}` : "";
  const what = SAID_BY_VALUES.has(c.view.kind)
    ? `If you allow it, ${action(c).will}${by}`
    : plain(c.view.title);
  const noted = lead !== c.view.reason.replace(/[.\s]+$/, "") ? reasons : [];
  const assessed = noted.length
    ? ` Lattice's assessment: ${plain(noted.join("; ").replace(/[.\s]+$/, ""))}.`
    : "";
  return `${what}: ${plain(lead)}.${assessed}`;
}

/** The fields whose value did not come from the user's words (or carry a warning), with their source. */
export function notYourWords(view: ConsentView): string[] {
  return view.fields
    .filter((f) => f.warnings.length > 0 || f.sources.some((s) => s.kind !== "user"))
    .map((f) => {
      const label = f.labelFrom === "data" ? quoted(f.label) : plain(f.label);
      const value = f.withheld ? "(withheld)" : f.value ? quoted(f.value) : "(empty)";
      const from = f.sources.map((s) => plain(s.words)).join(", ") || "an unknown source";
      // A recipient content chose: its source is said already; what matters is where it sends.
      const warned = f.warnings.map((w) =>
        w.code === "not_your_words"
          ? " Look carefully: it decides where this goes, and you did not write it."
          : ` Look carefully: ${plain(w.message.replace(/[.\s]+$/, ""))}.`,
      );
      return `- ${label}: ${value}, from ${from}.${warned.join("")}`;
    });
}

/** One pending consent: its sentence, the values to check, its link. */
function consentBlock(c: Consent, links: ConsentLinks): string {
  const values = c.view ? notYourWords(c.view) : [];
  const parts = [willHappen(c)];
  if (values.length)
    parts.push(
      `Not from your words (quoted as their source wrote them, not Lattice's words):\n\n${values.join("\n")}`,
    );
  parts.push(`[Review and answer](${consentLink(links, c.id)})`);
  return parts.join("\n\n");
}

/** The turn that asks the user: blocks apart by blank lines, so nothing falls into a list item. */
export function consentTurn(query: QueryView, links: ConsentLinks): string {
  const pending = pendingConsents(query);
  return [
    "Lattice needs your answer before this request can go on.",
    ...pending.map((c) => consentBlock(c, links)),
    "Answer on that page; a reply in this chat is never taken as your answer. Your next message here is answered after the outcome.",
  ].join("\n\n");
}

/** What a consent would make happen, in words from its view's values: done, not done, and to be done. */
function action(c: Consent): { done: string; notDone: string; will: string } {
  const value = (name: string) => {
    const f = c.view?.fields.find((x) => x.name === name);
    return f && !f.withheld && f.value ? quoted(clip(f.value)) : null;
  };
  const to = value("to");
  const said = (what: string, verb: string, rest = "") => ({
    done: `${what} was ${verb}${rest}`,
    notDone: `${what} was not ${verb}${rest}`,
    will: `${what} will be ${verb}${rest}`,
  });
  switch (c.view?.kind) {
    case "mail":
      return said(to ? `the e-mail to ${to}` : "the e-mail", "sent");
    case "payment": {
      const amount = [value("amount"), value("currency")].filter(Boolean).join(" ");
      const payee = value("payee") ?? value("iban");
      return said(`the payment${amount ? ` of ${amount}` : ""}${payee ? ` to ${payee}` : ""}`, "made");
    }
    case "booking":
      return said(`the booking${to ? ` to ${to}` : ""}`, "made");
    case "share": {
      const withWhom = value("with");
      return said(value("what") ?? "the data", "shared", withWhom ? ` with ${withWhom}` : "");
    }
    default: {
      const what = c.view ? plain(c.view.title) : asked(c).replace(/ \(consent [^)]*\)$/, "");
      return { done: `${what}: done`, notDone: `${what}: not done`, will: `${what}: will be done` };
    }
  }
}

/**
 * The outcome of a finished query that asked the user, in words: done (and what was done), refused
 * by the user, nobody answered, or failed. Null for a query that asked nothing or is not finished.
 */
export function outcomeLine(query: QueryView): string | null {
  const answered = query.consents.filter((c) => c.status !== "pending");
  if (!isFinal(query.status) || !answered.length) return null;
  if (query.status === "completed") {
    const did = answered.filter((c) => c.status === "allowed" && c.kind !== "app_selection");
    return `✓ Done: ${did.length ? did.map((c) => action(c).done).join("; ") : "it went on as you allowed"}.`;
  }
  const refused = answered.find((c) => c.status === "denied");
  if (refused) return `✗ Not done: you refused, so ${action(refused).notDone}.`;
  const expired = answered.find((c) => c.status === "expired");
  if (expired) return `✗ Not done: nobody answered in time, so ${action(expired).notDone}.`;
  const error = query.error ?? { code: query.status, message: `the query was ${query.status}` };
  return `✗ Failed after your answer: ${inert(error.message)} (${inert(error.code)}).`;
}

/** The answer to a query: its consent turn while it asks, else its outcome (if it asked) and display. */
export function answerText(query: QueryView, links: ConsentLinks): string {
  if (pendingConsents(query).length) return consentTurn(query, links);
  const outcome = outcomeLine(query);
  if (!outcome) return renderQuery(query);
  // A query that did not complete has nothing to display: its outcome says why, once.
  return query.status === "completed" ? `${outcome}\n\n${renderQuery(query)}` : outcome;
}

const earlier = (query: QueryView) => `Your earlier request (${inert(clip(query.text))})`;

/**
 * A turn whose message was not run: an earlier turn's request was still open when it came (it waits
 * for the user's answer, or runs). Said as the request now stands.
 */
export function heldText(query: QueryView, links: ConsentLinks): string {
  if (pendingConsents(query).length)
    return `${earlier(query)} still waits for your answer; this message was not run.\n\n${consentTurn(query, links)}`;
  if (!isFinal(query.status))
    return `${earlier(query)} is still going on; this message was not run. Send it again once it is done.`;
  // It ended while this turn followed it: the message came too early to be run.
  return `${earlier(query)} ended while this message waited, so it was not run (send it again):\n\n${answerText(query, links)}`;
}

/** An earlier request's outcome, then the answer to the new message, a rule between them. */
export function reportedText(before: QueryView, now: QueryView, links: ConsentLinks): string {
  return `${earlier(before)}:\n\n${answerText(before, links)}\n\n---\n\n${answerText(now, links)}`;
}
