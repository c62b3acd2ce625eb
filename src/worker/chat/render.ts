import type { QueryView } from "../../objects/hub/view.ts";
import type { ConsentView } from "../../runtime/consent-view.ts";

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

/** The assistant's text for a query that finished, waits for the user, or is still going. */
export function renderQuery(query: QueryView, links: ConsentLinks): string {
  const pending = pendingConsents(query);
  if (pending.length) {
    return [
      "Lattice needs your answer before this request can go on:",
      ...pending.map(
        (c) => `- ${asked(c)}: ${consentLink(links, c.id)}${c.view ? `\n${viewText(c.view)}` : ""}`,
      ),
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

/** A field's label: Lattice's words as text; an argument's own name (an app's or agent's) as data. */
const labelOf = (f: ConsentView["fields"][number]) =>
  f.labelFrom === "data" ? inert(f.label) : plain(f.label);

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

/**
 * A consent's view under its line: what a careful reader must know first (its warnings, in
 * Lattice's words, each value as Lattice made it visible), then each field with where it came
 * from, values inert; an app choice's options in the apps' own words, quoted.
 */
export function viewText(view: ConsentView): string {
  const out = [`  ${plain(view.title)}: ${plain(view.reason.replace(/[.\s]+$/, ""))}.`];
  if (view.warnings > 0) {
    out.push(
      `  Look carefully: ${view.warnings === 1 ? "1 value" : `${view.warnings} values`} may not be what ${view.warnings === 1 ? "it seems" : "they seem"}.`,
    );
  }
  for (const f of view.fields) {
    if (!f.warnings.length) continue;
    const visible = f.warnings.find((w) => w.visible)?.visible;
    const shown = visible ? ` Shown with every character visible: ${inert(visible)}` : "";
    out.push(`  - Warning, ${labelOf(f)}: ${f.warnings.map((w) => plain(w.message)).join("; ")}.${shown}`);
  }
  for (const f of view.fields) {
    const value = f.withheld ? "[withheld]" : inert(f.value ?? "");
    const from = f.sources.map((s) => plain(s.words)).join(", ") || "unknown";
    out.push(`  - ${labelOf(f)}: ${value} (${f.highlight ? "check: " : ""}from ${from})`);
  }
  for (const o of view.options ?? []) {
    out.push(
      `  - Option ${inert(o.app)} (${inert(o.tool)}), in its own words: ${inert(o.description)}${o.preselected ? " (your default)" : ""}`,
    );
  }
  return out.join("\n");
}
