/**
 * Literal provenance (DSL.md). The planner reads the trusted query and the untrusted app catalog,
 * so a literal it writes is trusted only if the user evidently stated it: a string that occurs in
 * the query, a number written in it, or a boolean or null (no room to smuggle a value in).
 * Everything else may come from app metadata and is labeled (bottom, app).
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

export function indexQuery(query: string): QueryIndex {
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
  return { folded: foldAscii(query), numbers };
}

/** Did the user state this scalar? Composite values are judged by their leaves (see `literalLabel`). */
export function isStated(value: string | number | boolean | null, q: QueryIndex): boolean {
  if (typeof value === "string") return q.folded.includes(foldAscii(value));
  if (typeof value === "number") return q.numbers.has(value);
  return true;
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
  if (value === null || typeof value !== "object") {
    return isStated(value, q) ? bottomLabel(l) : plannerLabel(l);
  }
  // Composite: the join of the leaves.
  let acc = bottomLabel(l);
  const parts: readonly JsonValue[] = Array.isArray(value) ? value : Object.values(value);
  for (const part of parts) acc = join(l, acc, literalLabel(l, part, q));
  return acc;
}
