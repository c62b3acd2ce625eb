/**
 * What a careful reader cannot see in a value: letters of two scripts in one word, invisible
 * characters, characters that look like ASCII ones but are not (a Cyrillic Е, a full-width 4, a
 * no-break space, the Kelvin sign), and a value that only looks like one of the user's trusted
 * values. The consent view (consent-view-build.ts) shows each in Lattice's words, with the value
 * made visible (`D[Cyrillic Е]02…`).
 *
 * What counts is decided by Unicode's own data, not a hand list: general categories and scripts
 * (property escapes), NFKC, and the confusables of Unicode's TR39 (the `unhomoglyph` package's
 * table). Only names of a few invisible characters and spaces are written here, for a person to
 * read. Pure.
 */
import unhomoglyph from "unhomoglyph";
import type { ViewWarning } from "./consent-view.ts";

/** Invisible: format characters (zero-width, bidi controls, soft hyphen) and the other default-ignorables. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** A space other than the ASCII one: no-break, thin, ideographic, line and paragraph separators. */
const ODD_SPACE = /[\p{Zs}\u2028\u2029\u0085]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const ASCII_PRINTABLE = /^[\x20-\x7e]+$/;
const LETTER = /\p{L}/u;
/** Letters every script uses (the long vowel mark ー, ª): they mix with any. */
const SHARED = /[\p{Script=Common}\p{Script=Inherited}]/u;

/** Scripts named in a warning; a letter of any other script is named by its code point. */
const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Cherokee",
  "Coptic",
  "Georgian",
  "Hebrew",
  "Arabic",
  "Devanagari",
  "Thai",
  "Han",
  "Hiragana",
  "Katakana",
  "Hangul",
  "Lisu",
  "Vai",
] as const;
const SCRIPT_RE = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, "u")] as const);
/** Scripts written together in one word without anything being odd (Japanese, Korean). */
const FAMILY: Readonly<Record<string, string>> = { Hiragana: "Han", Katakana: "Han", Hangul: "Han" };

/** Names a person knows for the invisible characters and spaces they may meet. */
const NAMES: Readonly<Record<string, string>> = {
  "\u200b": "zero-width space",
  "\u200c": "zero-width non-joiner",
  "\u200d": "zero-width joiner",
  "\u2060": "word joiner",
  "\ufeff": "zero-width no-break space",
  "\u00ad": "soft hyphen",
  "\u034f": "combining grapheme joiner",
  "\u200e": "left-to-right mark",
  "\u200f": "right-to-left mark",
  "\u061c": "Arabic letter mark",
  "\u202a": "left-to-right embedding",
  "\u202b": "right-to-left embedding",
  "\u202c": "pop directional formatting",
  "\u202d": "left-to-right override",
  "\u202e": "right-to-left override",
  "\u2066": "left-to-right isolate",
  "\u2067": "right-to-left isolate",
  "\u2068": "first strong isolate",
  "\u2069": "pop directional isolate",
  "\u00a0": "no-break space",
  "\u202f": "narrow no-break space",
  "\u2007": "figure space",
  "\u2009": "thin space",
  "\u200a": "hair space",
  "\u3000": "ideographic space",
  "\u2028": "line separator",
  "\u2029": "paragraph separator",
  "\u212a": "Kelvin sign",
  "\u212b": "Ångström sign",
  "\u2126": "Ohm sign",
}; // prettier-ignore

const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** The script of a letter, by name; null for a character that is no letter. */
export function scriptOf(c: string): string | null {
  if (!LETTER.test(c) || SHARED.test(c)) return null;
  return SCRIPT_RE.find(([, re]) => re.test(c))?.[0] ?? `script of ${hex(c)}`;
}

/** A non-ASCII character folded to what it looks like: NFKC, then Unicode's confusables. */
function foldChar(c: string): string {
  const n = c.normalize("NFKC");
  return ASCII_PRINTABLE.test(n) ? n : unhomoglyph(n);
}

/** The value as it looks: invisibles dropped, odd spaces as spaces, lookalikes as the ASCII they imitate. */
export function skeleton(value: string): string {
  let out = "";
  for (const c of value) {
    if (c.charCodeAt(0) < 0x80) out += c;
    else if (INVISIBLE.test(c)) continue;
    else if (ODD_SPACE.test(c)) out += " ";
    else out += foldChar(c);
  }
  return out;
}

/** What kind of unusual character `c` is, if it is one. */
export type Oddity = "invisible" | "space" | "lookalike";

export function oddity(c: string): Oddity | null {
  if (c.charCodeAt(0) < 0x80) return null;
  if (INVISIBLE.test(c)) return "invisible";
  if (ODD_SPACE.test(c)) return "space";
  const folded = foldChar(c);
  return folded !== c && ASCII_PRINTABLE.test(folded) ? "lookalike" : null;
}

/** A person's name for an unusual character: "zero-width space", "Cyrillic Е", "full-width 4". */
export function describeChar(c: string): string {
  const named = NAMES[c];
  if (named) return named;
  const kind = oddity(c);
  if (kind === "invisible") return `invisible ${hex(c)}`;
  if (kind === "space") return `space ${hex(c)}`;
  const nfkc = c.normalize("NFKC");
  const cp = c.codePointAt(0)!;
  if (nfkc !== c && cp >= 0xff01 && cp <= 0xff5e) return `full-width ${nfkc}`;
  if (nfkc !== c && ASCII_PRINTABLE.test(nfkc)) return `styled ${nfkc} (${hex(c)})`;
  const script = scriptOf(c);
  return script && !script.startsWith("script of") ? `${script} ${c}` : `${c} (${hex(c)})`;
}

/** Whether `c` is a joiner or variation selector inside an emoji sequence: how emoji are written, not hidden. */
function emojiPart(chars: readonly string[], i: number): boolean {
  const c = chars[i]!;
  if (c !== "\u200d" && !/[\ufe0e\ufe0f]/u.test(c)) return false;
  return EMOJI.test(chars[i - 1] ?? "") || (c === "\u200d" && EMOJI.test(chars[i + 1] ?? ""));
}

/** Words: runs of letters, digits and marks (an e-mail address is three words, a domain two). */
const WORD = /[\p{L}\p{M}\p{N}\p{Cf}]+/gu;

/**
 * How a value is read. `reference`: an identifier a person compares by eye (an IBAN, an address, a
 * phone number, a domain, a name), where a lookalike is called out in a word that mixes scripts or
 * only looks ASCII. `text`: words (a subject, a body), where a lookalike is called out inside a word
 * with ASCII letters or digits. In both, compatibility forms (full-width) always count, an emoji's
 * joiner never.
 */
export type Reading = "reference" | "text";

interface Marked {
  /** Code point positions (0-based) of the characters shown bracketed, with their kind. */
  marks: Map<number, Oddity | "mixed">;
  mixed: string[];
}

function mark(value: string, reading: Reading): Marked {
  const chars = [...value];
  const starts = codePointStarts(value);
  const words = [...value.matchAll(WORD)].map((m) => ({ text: m[0], at: starts.get(m.index!)! }));
  // A lookalike letter counts only where it can deceive (TR39's idea): in a word that mixes scripts
  // (marked below), or in a word that looks wholly ASCII but is not (аррӏе, Ｊｏｈｎ). A word wholly in
  // another script (Иван, Αθήνα) is that script's word. In text, a word with ASCII letters or digits
  // and a lookalike ("DE０２") counts too; in a reference, so does a lookalike outside any word (＠).
  const deceiving = new Set<number>();
  const inWord = new Set<number>();
  for (const w of words) {
    const n = [...w.text].length;
    const looksAscii = reading === "reference" && ASCII_PRINTABLE.test(skeleton(w.text));
    const asciiMixed = reading === "text" && /[A-Za-z0-9]/.test(w.text);
    for (let i = 0; i < n; i++) {
      inWord.add(w.at + i);
      if (looksAscii || asciiMixed) deceiving.add(w.at + i);
    }
  }
  const marks = new Map<number, Oddity | "mixed">();
  chars.forEach((c, i) => {
    const kind = oddity(c);
    if (!kind) return;
    // A joiner or variation selector inside an emoji sequence is how emoji are written (❤️), in any reading.
    if (kind === "invisible" && emojiPart(chars, i)) return;
    // A compatibility form of an ASCII character (a full-width letter, a styled digit) is never a word's own letter.
    const compat = c.normalize("NFKC") !== c && ASCII_PRINTABLE.test(c.normalize("NFKC"));
    if (kind === "lookalike" && !compat && !deceiving.has(i) && (reading === "text" || inWord.has(i))) return;
    if (reading === "text") {
      if (kind === "space" && (c === "\u00a0" || c === "\u202f" || c === "\u2028" || c === "\u2029")) return;
    }
    marks.set(i, kind);
  });
  // Mixed scripts, word by word: the letters outside the word's main script are the odd ones.
  const mixed: string[] = [];
  for (const w of words) {
    const counts = new Map<string, number>();
    for (const c of w.text) {
      const s = scriptOf(c);
      if (s) counts.set(FAMILY[s] ?? s, (counts.get(FAMILY[s] ?? s) ?? 0) + 1);
    }
    if (counts.size < 2) continue;
    mixed.push(w.text);
    // The main script: Latin where there is any (what an IBAN or address is written in), else the most used.
    const main = counts.has("Latin") ? "Latin" : [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    let at = w.at;
    for (const c of w.text) {
      const s = scriptOf(c);
      if (s && (FAMILY[s] ?? s) !== main) marks.set(at, "mixed");
      at++;
    }
  }
  return { marks, mixed };
}

/** UTF-16 index → code point index, for the starts of matches. */
function codePointStarts(value: string): Map<number, number> {
  const out = new Map<number, number>();
  let unit = 0;
  let cp = 0;
  for (const c of value) {
    out.set(unit, cp);
    unit += c.length;
    cp++;
  }
  return out;
}

/** The value with each unusual character bracketed and named: `D[Cyrillic Е]02`, `[zero-width space]`. */
export function visible(value: string, reading: Reading = "reference"): string {
  const { marks } = mark(value, reading);
  return [...value].map((c, i) => (marks.has(i) ? `[${describeChar(c)}]` : c)).join("");
}

/** 1st, 2nd, 3rd, 4th: positions as a person counts them. */
export const ordinal = (n: number): string => {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
};

/** Lists what was found ("the 2nd character is a Cyrillic Е"), a few at most. */
function listed(chars: readonly string[], at: readonly number[], tail: (c: string) => string): string {
  const shown = at.slice(0, 3).map((i) => `the ${ordinal(i + 1)} character is ${tail(chars[i]!)}`);
  return at.length > 3 ? `${shown.join("; ")}; and ${at.length - 3} more` : shown.join("; ");
}

const article = (s: string) => (/^[aeiouÅ]/i.test(s) ? `an ${s}` : `a ${s}`);

/** The unusual characters of one value, as warnings (at most one per code). */
export function characterWarnings(value: string, reading: Reading = "reference"): ViewWarning[] {
  const { marks, mixed } = mark(value, reading);
  if (!marks.size) return [];
  const chars = [...value];
  const shown = visible(value, reading);
  const at = (kinds: readonly string[]) =>
    [...marks]
      .filter(([, k]) => kinds.includes(k))
      .map(([i]) => i)
      .sort((a, b) => a - b);
  const out: ViewWarning[] = [];
  const looks = (c: string) => {
    const like = skeleton(c);
    return `${article(describeChar(c))}${like && like !== c ? `, not ${like === " " ? "a space" : `"${like}"`}` : ""}`;
  };
  if (mixed.length) {
    out.push({
      code: "mixed_scripts",
      message: `letters of more than one script in one word: ${listed(chars, at(["mixed"]), looks)}`,
      visible: shown,
    });
  }
  const lookalike = at(["lookalike", "space"]);
  if (lookalike.length) {
    out.push({
      code: "lookalike_characters",
      message: `characters that only look like ordinary ones: ${listed(chars, lookalike, looks)}`,
      visible: shown,
    });
  }
  const hidden = at(["invisible"]);
  if (hidden.length) {
    out.push({
      code: "invisible_characters",
      message: `invisible characters you cannot see on screen: ${listed(chars, hidden, (c) => article(describeChar(c)))}`,
      visible: shown,
    });
  }
  return out;
}
