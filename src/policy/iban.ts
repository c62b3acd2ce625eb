/**
 * Reading an IBAN in free text: where one may start, each country's length (SWIFT's registry), and
 * the mod-97 check. An account number whose check digits do not hold is no IBAN (#43: a document's
 * account number read as a foreign IBAN refused the user's own tax return).
 */

/**
 * Where an IBAN may start: a country code and check digits, spaced out or not (`G B 2 9`). What
 * follows is read group by group (ibanAt).
 */
export const IBAN_START = /(?<![\p{L}\p{N}])([A-Za-z])\s{0,3}([A-Za-z])\s{0,3}([0-9])\s{0,3}([0-9])/gu;
/** The length of each country's IBAN (SWIFT's registry): a code not listed writes no IBAN. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
}; // prettier-ignore

/** The check digits of an IBAN hold: the number it spells, country and check moved last, is 1 mod 97. */
export function ibanChecksumHolds(compact: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(compact)) return false;
  let rest = 0;
  for (const c of compact.slice(4) + compact.slice(0, 4)) {
    const n = c <= "9" ? c : String(c.charCodeAt(0) - 55);
    for (const d of n) rest = (rest * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/**
 * The IBAN that starts where `IBAN_START` matched, if its checksum holds: groups of letters and
 * digits, compact or split by up to three spaces, line breaks, dots or hyphens, are read until
 * the country's length. A group of lower-case letters alone is prose (`at 10 am`) and ends it.
 * Returns the IBAN and where it ends in the text.
 */
export function ibanAt(text: string, m: RegExpMatchArray): { iban: string; end: number } | null {
  const country = `${m[1]}${m[2]}`.toUpperCase();
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return null;
  let compact = `${country}${m[3]}${m[4]}`;
  let at = (m.index ?? 0) + m[0].length;
  const group = /([\s.-]{0,3})([A-Za-z0-9]+)/y;
  while (compact.length < length) {
    group.lastIndex = at;
    const g = group.exec(text);
    if (!g) break;
    const word = g[2]!;
    if (!/[0-9]/.test(word) && word !== word.toUpperCase()) break;
    const take = word.slice(0, length - compact.length);
    compact += take.toUpperCase();
    at = g.index + g[1]!.length + take.length;
  }
  return compact.length === length && ibanChecksumHolds(compact) ? { iban: compact, end: at } : null;
}
