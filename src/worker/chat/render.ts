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
  const table = tableOf(item.value);
  const lines = linesOf(item.value);
  const value =
    lines?.join("\n") ?? (typeof item.value === "string" ? item.value : JSON.stringify(item.value ?? null));
  if (!item.untrusted) {
    if (table) return `${title}\n${table}`;
    if (lines) return `${title}\n${objectLines(item.value as Record<string, unknown>)}`;
    return `${title}${inert(value)}`;
  }
  const from = item.provenance.apps.length
    ? `from ${item.provenance.apps.map(inert).join(", ")}`
    : "from an app";
  // A table's every cell is a code span: as inert as a fence, and readable.
  return `(unverified, ${from}) ${title}\n${table ?? fenced(value)}`;
}

/**
 * The assistant's text for a query that finished or is still going (a query that asks the user is
 * turn-text.ts's consent turn).
 */
export function renderQuery(query: QueryView): string {
  if (query.status === "failed" || query.status === "rejected") {
    // The error passed the display boundary (shown-error.ts), and is still written inert here.
    const error = query.error ?? { code: query.status, message: `the query was ${query.status}` };
    return `Lattice could not answer (${inert(error.code)}): ${inert(error.message)}`;
  }
  if (query.status !== "completed") {
    return "The request is still going on; send any message here to see how it went.";
  }
  return query.display.length ? query.display.map(renderItem).join("\n") : "(nothing to display)";
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
    endorse_plan: "a later step on data below the policy's trust floor, asked before anything runs",
    app_selection: "choosing the app",
    collaboration: "an app asking another app",
    authorize: "signing in to an app",
  };
  return `${what[c.kind] ?? inert(c.kind)}: ${inert(c.functionality)}${to} (consent ${c.id})`;
}

/**
 * Lattice's own words as plain text: every character Markdown could read as markup escaped. They
 * name apps and tools (identifiers an app chose), so they are kept from becoming links or emphasis.
 */
export function plain(text: string): string {
  return (
    text
      .replace(/[\r\n]+/g, " ")
      .replace(/[\\`*_[\]<>|~]/g, (c) => `\\${c}`)
      // GFM's autolinks (a scheme's `:`, `www.`, an address's `@`) would make a named site a live link.
      .replace(/(?<=[A-Za-z0-9]):(?=\S)|@/g, (c) => `\\${c}`)
      .replace(/(?<![A-Za-z0-9])(www)\./gi, "$1\\.")
  );
}

const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
const cellText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? null));

/** An object of scalars as `key: value` lines (an answer such as a contact), else null. */
function linesOf(value: unknown): string[] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  if (!entries.length || entries.length > 40 || !entries.every(([, v]) => scalar(v))) return null;
  return entries.map(([k, v]) => `${k}: ${cellText(v)}`);
}

function objectLines(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([k, v]) => `- ${inert(k)}: ${inert(cellText(v))}`)
    .join("\n");
}

/** A list of objects of scalars as a Markdown table, every cell a code span, else null. */
function tableOf(value: unknown): string | null {
  if (!Array.isArray(value) || !value.length || value.length > 50) return null;
  const rows = value.filter(
    (r): r is Record<string, unknown> => typeof r === "object" && r !== null && !Array.isArray(r),
  );
  if (rows.length !== value.length || !rows.every((r) => Object.values(r).every(scalar))) return null;
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!keys.length || keys.length > 12) return null;
  // A pipe would end a cell even inside a code span: GFM reads `\|` as one inside a table.
  const cell = (v: unknown) => (v === undefined ? " " : inert(cellText(v)).replace(/\|/g, "\\|"));
  return [
    `| ${keys.map(cell).join(" | ")} |`,
    `| ${keys.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${keys.map((k) => cell(r[k])).join(" | ")} |`),
  ].join("\n");
}
