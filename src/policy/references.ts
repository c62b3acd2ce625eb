/**
 * The references a text writes: hosts (of links, bare domains and e-mail addresses), e-mail
 * addresses and IBANs. The payload sanitiser (`no-foreign-references`, vouch.ts) lets untrusted
 * text through only when each of them also occurs in a trusted value, so a phishing link or an
 * attacker's address cannot ride along in a summary.
 *
 * Extraction fails closed: the text is read as a person or a link-rendering client could read it.
 * Compatibility forms are folded (full-width dots and letters), format characters removed,
 * percent-encoding and numeric HTML entities decoded, and the usual defangings (`[.]`, `(dot)`,
 * `\.`) read as dots; references are taken from the raw and the decoded text alike. Anything that
 * looks like a host counts, so a file name such as `notes.zip` is a reference too (a real top-level
 * domain) — a false refusal costs a question, a missed link costs the user.
 */

/**
 * Kinds are kept apart so a host never matches an e-mail address that merely contains it. `uri` is
 * a link without an authority (`mailto:`, `tel:`, `data:`, `javascript:`, a wallet): the scheme and
 * what follows up to a space.
 */
export type Reference = `host:${string}` | `email:${string}` | `iban:${string}` | `uri:${string}`;

/** Text beyond this is cut, not skipped: a longer payload is checked on its first part and refused whole (see vouch.ts). */
export const MAX_SCANNED = 200_000;

const FORMAT_CHARS = /\p{Cf}|\u034f|[\u115f\u1160\u3164\uffa0]/gu;
const DEFANGED_DOT =
  /\s*(?:\[\s*\.\s*\]|\(\s*\.\s*\)|\{\s*\.\s*\}|\[\s*dot\s*\]|\(\s*dot\s*\)|\{\s*dot\s*\}|\\\.)\s*|\s+dot\s+/giu;
const SPACED_DOT = /(?<=[\p{L}\p{N}])\s+\.\s+(?=[\p{L}\p{N}])/gu;
const DEFANGED_AT = /\s*(?:\[\s*at\s*\]|\(\s*at\s*\)|\{\s*at\s*\})\s*/giu;
const DOTS = /[\u3002\uff0e\uff61\u2024\u2e2e\ufe52]/gu;
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
/** Links that go somewhere without an authority: mail, calls, messages, inline documents, code, wallets. */
const OPAQUE =
  /\b(?:mailto|tel|sms|callto|data|javascript|vbscript|file|bitcoin|ethereum|litecoin|monero|lightning|magnet|intent|market|skype|whatsapp|tg|facetime|geo):[^\s<>"'`)\]]{1,2000}/giu;
/**
 * Compact, or printed in groups of four (`GB29 NWBK 6016 …`, `GB29-NWBK-…`, `GB29.NWBK.…`): never
 * running on into the next words.
 */
const IBAN =
  /(?<![\p{L}\p{N}])[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{10,30}|(?:[ .-][A-Z0-9]{4}){2,7}(?:[ .-][A-Z0-9]{1,4})?)(?![\p{L}\p{N}])/gu;

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

/** The readings of a text a person or a client might see: folded, and decoded up to three times. */
function readings(text: string): string[] {
  const folded = (t: string) =>
    t
      .normalize("NFKC")
      .replace(FORMAT_CHARS, "")
      .replace(DOTS, ".")
      .replace(DEFANGED_DOT, ".")
      .replace(SPACED_DOT, ".")
      .replace(DEFANGED_AT, "@");
  const out = [folded(text)];
  let at = text;
  for (let i = 0; i < 3; i++) {
    const next = decodeEntities(decodePercent(at));
    if (next === at) break;
    out.push(folded(next));
    at = next;
  }
  return out;
}

/** ASCII lower case only: a host written with another script's letters stays a different host. */
function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Every reference the text writes, canonical (hosts and addresses lower-cased in ASCII, IBANs without spaces). */
export function references(text: string): Set<Reference> {
  const found = new Set<Reference>();
  for (const reading of readings(text.slice(0, MAX_SCANNED))) {
    for (const m of reading.matchAll(EMAIL)) {
      found.add(`email:${lowerAscii(m[0])}`);
      found.add(`host:${lowerAscii(m[1]!)}`);
    }
    for (const m of reading.matchAll(HOST)) {
      const host = lowerAscii(m[0]);
      const tld = host.slice(host.lastIndexOf(".") + 1);
      // `report.pdf` is a file, `www.report.pdf` or `x.pdf/` is not: only a bare two-label name is excused.
      const bare = host.split(".").length === 2 && reading.charAt((m.index ?? 0) + m[0].length) !== "/";
      if (bare && FILE_EXTENSIONS.has(tld)) continue;
      found.add(`host:${host}`);
    }
    for (const m of reading.toUpperCase().matchAll(IBAN)) found.add(`iban:${m[0].replace(/[ .-]/g, "")}`);
    for (const m of reading.matchAll(AUTHORITY)) found.add(`host:${lowerAscii(m[1]!)}`);
    for (const m of reading.matchAll(OPAQUE)) found.add(`uri:${lowerAscii(m[0])}`);
  }
  return found;
}
