/**
 * Literal provenance (docs/DSL.md). In apps mode the planner reads the trusted query and reviewed
 * but app-written metadata, so a literal it writes is trusted only if the user evidently stated it:
 * a string of three or more characters that occurs in the query, a shorter one that is a whole word
 * of it, a number written in it, `true`/`false`/`null` written as words. Object keys and projection
 * paths the planner chose count as literals too. Everything else may come from app metadata and is
 * labeled (bottom, app). In catalog mode the planner read trusted input only, so every literal
 * carries the query's label.
 */
import type { JsonValue } from "./json.ts";
import { bottomLabel, join, type Label, normalizeLabel } from "./labels.ts";
import type { Lattices } from "./lattice.ts";

/** The integrity of a literal the planner chose: the middle "app" level where it exists. */
export const PLANNER_INTEGRITY = "app";

export interface QueryIndex {
  /** The query with ASCII letters lower-cased. */
  readonly folded: string;
  /** Every number the query writes, under each reading of its separators. */
  readonly numbers: ReadonlySet<number>;
  /** The query's words (runs of letters and digits), folded. */
  readonly words: ReadonlySet<string>;
  /** The planner saw trusted input only (catalog mode): its literals carry the query's label. */
  readonly trusted: boolean;
}

/**
 * Case-insensitive means ASCII only: full Unicode case mapping would equate the Kelvin sign "K"
 * with "k", letting a homoglyph literal pass as the string the user typed.
 */
export function foldAscii(s: string): string {
  return HAS_UPPER.test(s) ? s.replace(UPPER, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : s;
}

const HAS_UPPER = /[A-Z]/;
const UPPER = /[A-Z]/g;

const NUMBER_RUN = /([-\u2212]?)(\d+(?:[.,]\d+)*)/g;
const US_GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const EU_GROUPED = /^\d{1,3}(?:\.\d{3})+(?:,\d+)?$/;
const PLAIN = /^\d+(?:[.,]\d+)?$/;

/**
 * The values a run of digits and separators can denote: "1,250.50" → 1250.5; "1.250,50" →
 * 1250.5; "1,5" → 1.5; "1,250" → 1250 and 1.25. A run that fits none of these ("1.2.3") writes
 * its digit groups separately. A leading minus adds the negative.
 */
function readings(run: string): number[] {
  const values: number[] = [];
  if (US_GROUPED.test(run)) values.push(Number(run.replaceAll(",", "")));
  if (EU_GROUPED.test(run)) values.push(Number(run.replaceAll(".", "").replace(",", ".")));
  if (PLAIN.test(run)) values.push(Number(run.replace(",", ".")));
  if (values.length === 0) for (const group of run.split(/[.,]/)) values.push(Number(group));
  return values;
}

const WORD = /[\p{L}\p{N}_]+/gu;

export function indexQuery(query: string, trusted = false): QueryIndex {
  const numbers = new Set<number>();
  for (const m of query.matchAll(NUMBER_RUN)) {
    const sign = m[1] ?? "";
    const run = m[2] ?? "";
    // A minus glued to a word or number ("2024-05") is a hyphen, not a sign.
    const before = m.index > 0 ? query.charAt(m.index - 1) : "";
    const negative = sign !== "" && !/[\p{L}\p{N}]/u.test(before);
    for (const v of readings(run)) {
      numbers.add(v);
      if (negative) numbers.add(-v);
    }
  }
  const folded = foldAscii(query);
  return { folded, numbers, words: new Set(folded.match(WORD) ?? []), trusted };
}

/**
 * Did the user state this scalar? A string of one or two characters must be a whole word of the
 * query (any query contains "a" somewhere), the empty string never is. Composite values are judged
 * by their keys and leaves (see `literalLabel`).
 */
export function isStated(value: string | number | boolean | null, q: QueryIndex): boolean {
  if (typeof value === "string") {
    if (value.length === 0) return false;
    const folded = foldAscii(value);
    return value.length <= 2 ? q.words.has(folded) : q.folded.includes(folded);
  }
  if (typeof value === "number") return q.numbers.has(value);
  return q.words.has(String(value));
}

/** The label of a literal the planner chose (one the user did not state). */
export function plannerLabel(l: Lattices): Label {
  const integrity = l.integrity.rank(PLANNER_INTEGRITY) >= 0 ? PLANNER_INTEGRITY : l.integrity.bottom;
  return normalizeLabel(l, { confidentiality: l.confidentiality.bottom, integrity });
}

/**
 * The label of a literal: (bottom, top) where the user stated it, (bottom, app) otherwise. A
 * composite literal is the join of its leaves, exactly as if it were written with `obj`/`arr`
 * (keys are structure, as in `obj`); so `{"lit": []}` is (bottom, top) like `{"arr": []}`.
 * On a custom lattice without an `app` level, a planner-chosen literal gets the bottom integrity.
 */
export function literalLabel(l: Lattices, value: JsonValue, q: QueryIndex): Label {
  if (q.trusted) return bottomLabel(l);
  if (value === null || typeof value !== "object") {
    return isStated(value, q) ? bottomLabel(l) : plannerLabel(l);
  }
  // Composite: the join of the keys and leaves.
  let acc = bottomLabel(l);
  if (Array.isArray(value)) {
    for (const part of value) acc = join(l, acc, literalLabel(l, part, q));
    return acc;
  }
  for (const [key, part] of Object.entries(value)) {
    acc = join(l, join(l, acc, literalLabel(l, key, q)), literalLabel(l, part, q));
  }
  return acc;
}

/** The keys an `obj` expression writes, and the steps of a projection path: literals the planner chose. */
export function chosenLabel(l: Lattices, parts: Iterable<string | number>, q: QueryIndex): Label {
  if (!q.trusted) for (const part of parts) if (!isStated(part, q)) return plannerLabel(l);
  return bottomLabel(l);
}
