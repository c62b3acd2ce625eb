/**
 * A consent view's value against the query's trusted values (the user's words and the tool answers
 * the policy lists in `trustedValues`, vouch.ts's pool): the trusted value it only looks like, an
 * IBAN none of the user's saved payees has, an address, domain or phone number not among their
 * contacts. The characters themselves are lookalike.ts's. Pure.
 */
import type { ViewWarning } from "./consent-view.ts";
import { characterWarnings, ordinal, type Reading, skeleton, visible } from "./lookalike.ts";

/** A trusted value and where it comes from, in Lattice's words ("your words", "payees.list's answer"). */
export interface TrustedValue {
  readonly value: string;
  readonly source: string;
}

const compact = (s: string) => s.replace(/[ .-]/g, "");

/**
 * The trusted value this one only looks like: equal after invisibles are removed and lookalikes
 * folded (an IBAN or a phone number also without its grouping), different in code points. Null
 * when it equals one exactly or resembles none. The message names where the trusted value comes
 * from and where they part, never the value: the trusted value is shown by the field itself.
 */
export function nearTrusted(value: string, trusted: readonly TrustedValue[]): ViewWarning | null {
  if (trusted.some((t) => t.value === value || (isIban(value) && compact(t.value) === compact(value))))
    return null;
  const sk = skeleton(value);
  // Values that differ in ASCII only (grouping, another letter) differ visibly.
  if (sk === value) return null;
  const near =
    trusted.find((t) => skeleton(t.value) === sk) ??
    trusted.find((t) => compact(skeleton(t.value)) === compact(sk) && compact(sk).length >= 8);
  if (!near) return null;
  const a = [...value];
  const b = [...near.value];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return {
    code: "near_trusted_value",
    message: `looks like a value from ${near.source} but is not the same: it differs from the ${ordinal(i + 1)} character on`,
    visible: visible(value),
  };
}

const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/;
/** Whether a value reads as one IBAN, lookalikes folded (a Cyrillic letter does not make it something else). */
export function isIban(value: string): boolean {
  return IBAN_SHAPE.test(compact(skeleton(value).trim()).toUpperCase());
}

/** A phone number as written: digits with the usual grouping, at least seven of them. */
const PHONE = /\+?[0-9][0-9 ()./-]{5,}[0-9]/g;
const PHONE_VALUE = /^\+?[0-9][0-9 ()./-]{5,}[0-9]$/;
const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}/;
const digits = (s: string) => s.replace(/[^0-9]/g, "");

const MAX_TRUSTED = 5_000;
const MAX_TRUSTED_TEXT = 500_000;

/** The trusted values' IBANs, e-mail addresses, hosts and phone numbers, with a source each. */
export class TrustedReferences {
  readonly values: readonly TrustedValue[];
  private readonly refs = new Map<string, string>();
  private readonly phones = new Map<string, string>();
  readonly ibans: readonly TrustedValue[];

  constructor(values: readonly TrustedValue[], extract: (text: string) => Iterable<string>) {
    // Bounded as the pool's own references are: past the bound a value is compared with fewer
    // trusted ones, which can only add an "unknown" warning, never take one away.
    const kept: TrustedValue[] = [];
    let text = 0;
    for (const t of values) {
      text += t.value.length;
      if (text > MAX_TRUSTED_TEXT || kept.length >= MAX_TRUSTED) break;
      kept.push(t);
    }
    this.values = kept;
    const ibans: TrustedValue[] = [];
    for (const t of this.values) {
      for (const ref of extract(t.value)) {
        if (!this.refs.has(ref)) this.refs.set(ref, t.source);
        if (ref.startsWith("iban:")) ibans.push({ value: ref.slice(5), source: t.source });
      }
      for (const m of t.value.matchAll(PHONE)) {
        const d = digits(m[0]);
        if (d.length >= 7 && !this.phones.has(d)) this.phones.set(d, t.source);
      }
    }
    this.ibans = ibans;
  }

  has(ref: string): boolean {
    return this.refs.has(ref);
  }

  phone(d: string): boolean {
    return this.phones.has(d);
  }
}

/** Whether a value is exactly one of the trusted values (an IBAN also as grouped with ASCII spaces). */
export function isTrustedValue(value: string, trusted: TrustedReferences): boolean {
  return trustedHolders(value, trusted).length > 0;
}

/** The source a consent view names for the user's own query. */
export const YOUR_WORDS = "your words";

/** The trusted values this value exactly is (an IBAN also as grouped with ASCII spaces). */
export function trustedHolders(value: string, trusted: TrustedReferences): TrustedValue[] {
  const exact = trusted.values.filter((t) => t.value === value);
  if (exact.length || !isIban(value)) return exact;
  const iban = compact(value.trim()).toUpperCase();
  return trusted.ibans.filter((t) => t.value === iban);
}

/** Whether the value is exactly one the user wrote in the query. */
export function inUsersWords(value: string, trusted: TrustedReferences): boolean {
  return trustedHolders(value, trusted).some((t) => t.source === YOUR_WORDS);
}

/**
 * The trusted source a value content chose was picked from, and how many values that source
 * holds: the choice content steered among (vouch.ts's `candidates`, per source). Null when the
 * value is in none.
 */
export function chosenAmong(
  value: string,
  trusted: TrustedReferences,
): { source: string; count: number } | null {
  const held = trustedHolders(value, trusted).find((t) => t.source !== YOUR_WORDS);
  if (!held) return null;
  return { source: held.source, count: trusted.values.filter((t) => t.source === held.source).length };
}

/**
 * The references a value writes that none of the query's trusted values has: an IBAN no saved
 * payee has (`unknown_payee`), an address, domain or phone number not among the user's contacts
 * and words (`unknown_contact`). `extract` is references.ts's, folded as a client would read it.
 */
export function referenceWarnings(
  value: string,
  trusted: TrustedReferences,
  extract: (text: string) => Iterable<string>,
): ViewWarning[] {
  const out: ViewWarning[] = [];
  const refs = [...extract(value)];
  // A value that is an IBAN is known only as written (ASCII grouping aside): the folded reading
  // references.ts takes would find a Cyrillic or full-width one equal to the saved payee's.
  const unknownIban = isIban(value)
    ? !trusted.ibans.some((t) => t.value === compact(value.trim()).toUpperCase())
    : refs.some((r) => r.startsWith("iban:") && !trusted.has(r));
  const ibans = refs.filter((r) => r.startsWith("iban:"));
  if (unknownIban) {
    out.push({
      code: "unknown_payee",
      message:
        trusted.ibans.length > 0
          ? "this IBAN is not one of your saved payees' IBANs"
          : "this IBAN is not one you gave or saved: no saved payee was read for this request",
    });
  }
  const emails = refs.filter((r) => r.startsWith("email:"));
  const emailHosts = new Set(emails.map((r) => `host:${r.slice(r.indexOf("@") + 1)}`));
  const hosts = refs.filter((r) => r.startsWith("host:") && !emailHosts.has(r));
  const unknown = [...emails, ...hosts].filter((r) => !trusted.has(r));
  // A phone number only as a whole value: digits inside text are as often dates, amounts or ids.
  const whole = skeleton(value).trim();
  const phone = PHONE_VALUE.test(whole) && !DATE.test(whole) && digits(whole).length >= 7;
  const phones = phone && !trusted.phone(digits(whole)) && !ibans.length ? [whole] : [];
  const what = [
    ...(unknown.some((r) => r.startsWith("email:")) ? ["an e-mail address"] : []),
    ...(unknown.some((r) => r.startsWith("host:")) ? ["a domain"] : []),
    ...(phones.length ? ["a phone number"] : []),
  ];
  if (what.length) {
    out.push({
      code: "unknown_contact",
      // Not "not among your contacts": an app's answer (a contacts lookup) may well hold it, but only
      // the user's words and the answers the policy trusts (`trustedValues`) vouch for a value.
      message: `${what.join(" and ")} found neither in your words nor in an answer your policy trusts`,
    });
  }
  return out;
}

/**
 * Every warning about one value: its unusual characters, the trusted value it only looks like,
 * and (with the query's trusted values) the payees and contacts none of them has.
 */
/** The most references in one text read character by character: the rest are still compared to trusted ones. */
const MAX_EMBEDDED = 20;

/**
 * A text's addresses, domains and links read as references (lookalike.ts): an all-Cyrillic
 * `аррӏе.com` in a mail body is one word of one script, which the text reading lets pass.
 */
function embeddedWarnings(
  value: string,
  found: readonly ViewWarning[],
  extract: (text: string) => Iterable<string>,
): ViewWarning[] {
  const out: ViewWarning[] = [];
  const codes = new Set(found.map((w) => w.code));
  let n = 0;
  for (const ref of extract(value)) {
    if (n++ >= MAX_EMBEDDED) break;
    const at = ref.indexOf(":");
    const kind = ref.slice(0, at);
    if (kind !== "host" && kind !== "email") continue;
    for (const w of characterWarnings(ref.slice(at + 1), "reference")) {
      if (codes.has(w.code)) continue;
      codes.add(w.code);
      const what = kind === "email" ? "an e-mail address" : "a web address";
      out.push({ ...w, message: `in ${what} in this text: ${w.message}` });
    }
  }
  return out;
}

export function valueWarnings(
  value: string,
  reading: Reading,
  trusted: TrustedReferences | null,
  extract: (text: string) => Iterable<string>,
): ViewWarning[] {
  const out = characterWarnings(value, reading);
  if (reading === "text") out.push(...embeddedWarnings(value, out, extract));
  if (!trusted) return out;
  const candidates = reading === "reference" ? [...trusted.values, ...trusted.ibans] : [];
  const near = candidates.length ? nearTrusted(value, candidates) : null;
  if (near) out.push(near);
  for (const w of referenceWarnings(value, trusted, extract)) {
    // A near match already says the value is not the trusted one, and which one it imitates.
    if (!near) out.push(w);
  }
  return out;
}
