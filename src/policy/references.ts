/**
 * The references a text writes: whole links, hosts (bare, or of links and e-mail addresses), e-mail
 * addresses, IBANs, phone numbers, chat handles, wallet addresses and IP literals. The payload
 * sanitiser (`no-foreign-references`, vouch.ts) lets untrusted text through only when each of them
 * also occurs in a trusted value, so a phishing link or an attacker's address cannot ride along in
 * a summary (#43).
 *
 * Extraction fails closed: the text is read as a person or a link-rendering client could read it.
 * Compatibility forms are folded (full-width dots and letters), format characters removed,
 * percent-encoding and numeric HTML entities decoded, and the usual defangings (`[.]`, `(dot)`,
 * `\.`, `(at)`, a dot or `@` with spaces or line breaks around it) read as separators;
 * references are taken from the raw and the decoded text alike. Anything that looks like a host
 * counts, so a file name such as `notes.zip` is a reference too (a real top-level domain) — a false
 * refusal costs a question, a missed link costs the user. What looks like a link but cannot be read
 * with confidence (the WHATWG parser refuses it, or its authority holds `@` or `\`, where people
 * and browsers disagree on the host) is `unreadable:`, which nothing trusted matches.
 */

import { IBAN_START, ibanAt } from "./iban.ts";

/**
 * Kinds are kept apart so a host never matches an e-mail address that merely contains it.
 *
 * - `link`: a whole link as the WHATWG `URL` parser reads it, the fragment dropped (a path on a
 *   trusted multi-tenant host is a place of its own). A link without a scheme (`host.tld/path`,
 *   `203.0.113.9/x`) is read as `https://`. Object stores' links (`s3://bucket/key`) are links.
 * - `host`: a bare host, or the host of a link or address (so a trusted link vouches for its host).
 *   IP literals, with or without a scheme, are hosts.
 * - `uri`: a link without an authority (`mailto:`, `tel:`, `data:`, `javascript:`, `arn:`, a
 *   wallet URI): the scheme and what follows up to a space.
 * - `iban`: only when its check digits hold (mod 97) and its length is its country's.
 * - `phone`: `+` or `00` and 7–15 digits in any grouping; or a national number, 7–15 digits in
 *   two or more groups split by spaces, dots or hyphens (`030 1234567`, `(555) 010-0100`), not a
 *   date and not a thousands-grouped number unless it starts with 0 (`12/345/67890`, a tax
 *   number, is no phone number). Digits only, `+` for international.
 * - `handle`: `@name` not inside an e-mail address, lower-cased.
 * - `wallet`: `0x` and 40 hex digits, bech32 (`bc1…`, `ltc1…`), base58 (`1…`, `3…`).
 * - `unreadable`: something shaped like a reference that cannot be read with confidence.
 */
export type Reference =
  | `link:${string}`
  | `host:${string}`
  | `email:${string}`
  | `iban:${string}`
  | `uri:${string}`
  | `phone:${string}`
  | `handle:${string}`
  | `wallet:${string}`
  | `unreadable:${UnreadableKind}`;

/** What could not be read: a link the parser refused, or an authority with `@` or `\` in it. */
export type UnreadableKind = "link" | "authority";

export function isUnreadable(ref: Reference): ref is `unreadable:${UnreadableKind}` {
  return ref.startsWith("unreadable:");
}

/** Text beyond this is cut, not skipped: a longer payload is checked on its first part and refused whole (see vouch.ts). */
export const MAX_SCANNED = 200_000;

const FORMAT_CHARS = /\p{Cf}|\u034f|[\u115f\u1160\u3164\uffa0]/gu;
const DEFANGED_DOT =
  /\s*(?:\[\s*\.\s*\]|\(\s*\.\s*\)|\{\s*\.\s*\}|\[\s*dot\s*\]|\(\s*dot\s*\)|\{\s*dot\s*\}|\\\.)\s*|\s+dot\s+/giu;
/**
 * A dot with a space or line break before it (`evil .test`, `evil\n.\ntest`). A dot followed by a
 * space alone is how a sentence ends, so it is not folded: `Done. Test it` (and `e.g. the`) stays
 * prose; a line break after it is read below.
 */
const SPACED_DOT = /(?<=[\p{L}\p{N}])\s+\.\s*(?=[\p{L}\p{N}])/gu;
/**
 * A dot then a line break before a lower-case word (`evil.\ntest`): a sentence's next line starts
 * with a capital, so this is a host broken over lines, not prose.
 */
const BROKEN_DOT = /(?<=[\p{L}\p{N}])\.[ \t]*\r?\n\s*(?=[\p{Ll}\p{N}])/gu;
const DEFANGED_AT = /\s*(?:\[\s*(?:at|@)\s*\]|\(\s*(?:at|@)\s*\)|\{\s*(?:at|@)\s*\})\s*/giu;
/** An `@` with a space or line break on either side (`mark @ evil.test`). */
const SPACED_AT = /(?<=[\p{L}\p{N}._%+-])(?:\s+@\s*|@\s+)(?=[\p{L}\p{N}])/gu;
/** `mark at evil.test`: a worded `at` only where a host follows, so "meet at noon" stays prose. */
const WORDED_AT = /(?<=[\p{L}\p{N}._%+-])\s+at\s+(?=(?:[\p{L}\p{N}-]+\.)+\p{L}{2,})/giu;
/** Look-alike dots: ideographic, full-width, halfwidth, one-dot leader, middle dots. */
const DOTS = /[\u3002\uff0e\uff61\u2024\u2e2e\ufe52\u00b7\u2219\u22c5\u30fb\uff65]/gu;
const PERCENT = /%([0-9A-Fa-f]{2})/g;
/** Numeric entities with any number of leading zeros (browsers read them all). */
const ENTITY = /&#(x0*[0-9A-Fa-f]{1,6}|0*[0-9]{1,7});?/gi;
/** The named entities for the characters a reference is made of. */
const NAMED: Readonly<Record<string, string>> = {
  period: ".",
  commat: "@",
  colon: ":",
  sol: "/",
  bsol: "\\",
  percnt: "%",
  num: "#",
  quest: "?",
  equals: "=",
  amp: "&",
  plus: "+",
  lowbar: "_",
  dash: "-",
  hyphen: "-",
  lpar: "(",
  rpar: ")",
  lsqb: "[",
  rsqb: "]",
  lbrack: "[",
  rbrack: "]",
  lcub: "{",
  rcub: "}",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  tilde: "~",
  excl: "!",
  semi: ";",
  comma: ",",
}; // prettier-ignore
const NAMED_ENTITY = /&([A-Za-z]{2,8});?/g;

/**
 * A host: labels of letters, digits and hyphens (any script), ending in a top-level label of two or
 * more letters, or a punycode one (`xn--p1ai`).
 */
const HOST =
  /(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,62}[\p{L}\p{N}])?\.)+(?:\p{L}{2,63}|xn--[\p{L}\p{N}-]{1,59})(?![\p{L}\p{N}-])/gu;
const EMAIL =
  /[\p{L}\p{N}._%+-]{1,64}@((?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,62}[\p{L}\p{N}])?\.)+(?:\p{L}{2,63}|xn--[\p{L}\p{N}-]{1,59}))(?![\p{L}\p{N}-])/gu;
/** Any `scheme://authority`: the authority is the reference, an IP literal or a one-label host included. */
const AUTHORITY =
  /\b[a-z][a-z0-9+.-]{1,30}:\/\/(?:[^\s/?#@<>"'`)\]]*@)?(\[[^\]\s]{1,60}\]|[^\s/?#:<>"'`)\]]{1,255})/giu;
/** Links that go somewhere without an authority: mail, calls, messages, inline documents, code, wallets, cloud objects (`arn:`). */
const OPAQUE =
  /\b(?:mailto|tel|sms|callto|data|javascript|vbscript|file|bitcoin|ethereum|litecoin|monero|lightning|magnet|intent|market|skype|whatsapp|tg|facetime|geo|arn):[^\s<>"'`)\]]{1,2000}/giu;
/** A link with a scheme, up to a space or a quote (trailing sentence punctuation is trimmed). */
const LINK = /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s<>"'`]{1,2000}/giu;
const TRAILING = /[.,;:!?)\]}'"*_]+$/u;
/** What may follow a bare host to make it a link: a path, a query or a port. */
const CONTINUES = /^(?:[/?]|:[0-9])[^\s<>"'`]{0,2000}/u;
const IPV4 =
  /(?<![\p{L}\p{N}.])(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(?![\p{N}]|\.[\p{N}])/gu;
/** Colon-separated hex groups; kept only with `::` or eight groups, and if the parser takes it. */
const IPV6 = /(?<![\p{L}\p{N}:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\p{L}\p{N}:])/giu;
const PHONE_INTL = /(?<![\p{L}\p{N}+])(?:\+|00)\s{0,2}\(?[0-9](?:[\s()./-]{0,2}[0-9]){6,14}(?![\p{N}])/gu;
const PHONE_NATIONAL =
  /(?<![\p{L}\p{N}.,+/-])\(?[0-9]{2,5}\)?(?:[ .-]| - )[0-9]{2,}(?:(?:[ .-]| - )[0-9]{2,}){0,4}(?![\p{L}\p{N}]|[.,][\p{N}])/gu;
const DATE_START = /^(?:[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./][0-9]{2,4})/;
const THOUSANDS = /^[1-9][0-9]{0,2}(?:[ .][0-9]{3})+$/;
const HANDLE = /(?<![\p{L}\p{N}._%+\-@/])@([A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?)/gu;
const WALLETS: readonly RegExp[] = [
  /(?<![\p{L}\p{N}])0x[0-9a-fA-F]{40}(?![\p{L}\p{N}])/gu,
  /(?<![\p{L}\p{N}])(?:bc1|tb1|ltc1)[02-9ac-hj-np-z]{11,71}(?![\p{L}\p{N}])/giu,
  /(?<![\p{L}\p{N}])[13][1-9A-HJ-NP-Za-km-z]{25,34}(?![\p{L}\p{N}])/gu,
];

/**
 * File names are the one common thing shaped like a host; these extensions are no top-level domain,
 * so a client never renders `report.pdf` as a link. (`.md`, `.zip`, `.mov` are domains: not listed.)
 */
const FILE_EXTENSIONS = new Set([
  "pdf",
  "doc",
  "docx",
  "xls",
  "xlsx",
  "ppt",
  "pptx",
  "txt",
  "csv",
  "json",
  "png",
  "jpg",
  "jpeg",
  "gif",
  "odt",
  "ods",
  "rtf",
  "tsv",
  "yaml",
  "yml",
  "xml",
]); // prettier-ignore

function decodePercent(text: string): string {
  return text.replace(PERCENT, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function decodeEntities(text: string): string {
  return text
    .replace(ENTITY, (whole, num: string) => {
      const hex = num[0] === "x" || num[0] === "X";
      const code = hex ? Number.parseInt(num.slice(1), 16) : Number.parseInt(num, 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(NAMED_ENTITY, (whole, name: string) => NAMED[name.toLowerCase()] ?? whole);
}

/**
 * The readings of a text a person or a client might see, decoded up to three times: each as
 * folded (`base`: compatibility forms, format characters, look-alike dots) and with defanged and
 * spaced separators read as separators (`read`). Handles are taken from `base`, where `ask @dana`
 * is not yet folded into `ask@dana`.
 */
function readings(text: string): Array<{ base: string; read: string }> {
  const base = (t: string) => t.normalize("NFKC").replace(FORMAT_CHARS, "").replace(DOTS, ".");
  const read = (b: string) =>
    b
      .replace(DEFANGED_DOT, ".")
      .replace(SPACED_DOT, ".")
      .replace(BROKEN_DOT, ".")
      .replace(DEFANGED_AT, "@")
      .replace(SPACED_AT, "@")
      .replace(WORDED_AT, "@");
  const both = (t: string) => {
    const b = base(t);
    return { base: b, read: read(b) };
  };
  const out = [both(text)];
  let at = text;
  for (let i = 0; i < 3; i++) {
    const next = decodeEntities(decodePercent(at));
    if (next === at) break;
    out.push(both(next));
    at = next;
  }
  return out;
}

/** ASCII lower case only: a host written with another script's letters stays a different host. */
function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * A link as the WHATWG parser reads it (what a browser would open): the whole link without its
 * fragment, and its host; or unreadable, where the parser refuses it or its authority holds `@` or
 * `\` (userinfo, or a backslash browsers read as a slash: `https://203.0.113.9\@github.com/`).
 */
function readLink(raw: string, found: Set<Reference>): void {
  const link = raw.replace(TRAILING, "");
  const after = link.indexOf("//") + 2;
  const authority = link.slice(after).split(/[/?#]/, 1)[0] ?? "";
  if (/[@\\]/.test(authority)) {
    found.add("unreadable:authority");
    return;
  }
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    found.add("unreadable:link");
    return;
  }
  url.hash = "";
  found.add(`link:${url.href}`);
  if (url.hostname) found.add(`host:${url.hostname}`);
}

/**
 * Blanks the spans already read, so their digits are not read again as a phone number. One pass
 * over the text however many spans (a payload of many IBANs must not cost their product).
 */
function blank(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let at = 0;
  for (const [from, to] of sorted) {
    if (to <= at) continue;
    const start = Math.max(from, at);
    parts.push(text.slice(at, start), " ".repeat(to - start));
    at = to;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** Every reference the text writes, canonical (see `Reference`). */
export function references(text: string): Set<Reference> {
  const found = new Set<Reference>();
  for (const { base, read: reading } of readings(text.slice(0, MAX_SCANNED))) {
    for (const m of reading.matchAll(EMAIL)) {
      found.add(`email:${lowerAscii(m[0])}`);
      found.add(`host:${lowerAscii(m[1]!)}`);
    }
    for (const m of reading.matchAll(HOST)) {
      const host = lowerAscii(m[0]);
      const end = (m.index ?? 0) + m[0].length;
      const tld = host.slice(host.lastIndexOf(".") + 1);
      // `report.pdf` is a file, `www.report.pdf` or `x.pdf/` is not: only a bare two-label name is excused.
      const bare = host.split(".").length === 2 && reading.charAt(end) !== "/";
      if (bare && FILE_EXTENSIONS.has(tld)) continue;
      found.add(`host:${host}`);
      schemeless(reading, m.index ?? 0, end, found);
    }
    for (const m of reading.matchAll(IPV4)) {
      found.add(`host:${m[0]}`);
      schemeless(reading, m.index ?? 0, (m.index ?? 0) + m[0].length, found);
    }
    for (const m of reading.matchAll(IPV6)) {
      if (!m[0].includes("::") && m[0].split(":").length !== 8) continue;
      if (!/[0-9a-f]/i.test(m[0])) continue;
      try {
        found.add(`host:${new URL(`http://[${m[0]}]/`).hostname}`);
      } catch {
        // Not an address the parser takes: prose such as `a::b`.
      }
    }
    const spans: Array<[number, number]> = [];
    for (const m of reading.matchAll(IBAN_START)) {
      const iban = ibanAt(reading, m);
      if (!iban) continue;
      found.add(`iban:${iban.iban}`);
      spans.push([m.index ?? 0, iban.end]);
    }
    for (const m of reading.matchAll(LINK)) readLink(m[0], found);
    for (const m of reading.matchAll(AUTHORITY)) found.add(`host:${lowerAscii(m[1]!)}`);
    for (const m of reading.matchAll(OPAQUE)) found.add(`uri:${lowerAscii(m[0])}`);
    let digits = blank(reading, spans);
    for (const m of digits.matchAll(PHONE_INTL)) {
      found.add(`phone:+${m[0].replace(/^\s*(?:\+|00)|[^0-9]/g, "")}`);
      spans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
    }
    digits = blank(reading, spans);
    for (const m of digits.matchAll(PHONE_NATIONAL)) {
      const written = m[0];
      const n = written.replace(/[^0-9]/g, "");
      if (n.length < 7 || n.length > 15 || DATE_START.test(written) || THOUSANDS.test(written)) continue;
      if (IPV4_WHOLE.test(written)) continue;
      found.add(`phone:${n}`);
    }
    for (const m of base.matchAll(HANDLE)) found.add(`handle:@${lowerAscii(m[1]!)}`);
    for (const wallet of WALLETS) {
      for (const m of reading.matchAll(wallet)) {
        if (!/[A-Za-z]/.test(m[0].slice(1))) continue;
        const w = m[0].startsWith("0x") || /^(?:bc1|tb1|ltc1)/i.test(m[0]) ? lowerAscii(m[0]) : m[0];
        found.add(`wallet:${w}`);
      }
    }
  }
  return found;
}

const IPV4_WHOLE = /^(?:[0-9]{1,3}\.){3}[0-9]{1,3}$/;

/**
 * A host (or IP) followed by a path, query or port, with no scheme before it (`github.com/evil-org`,
 * `203.0.113.9/x`): a link a client renders as `https://`. Hosts inside a link with a scheme, or
 * an e-mail address's domain, are read there.
 */
function schemeless(reading: string, start: number, end: number, found: Set<Reference>): void {
  const before = reading.slice(Math.max(0, start - 2), start);
  if (before.endsWith("@") || before === "//") return;
  const rest = CONTINUES.exec(reading.slice(end, end + 2001));
  if (!rest) return;
  readLink(`https://${reading.slice(start, end)}${rest[0]}`, found);
}
