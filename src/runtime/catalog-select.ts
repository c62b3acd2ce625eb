import type { PlannerTool } from "./snapshot.ts";

/**
 * Catalog mode, large catalogs: the entries a query needs, chosen deterministically by BM25 over
 * each entry's name and description (the tenant admin's words; never an app's) against the user's
 * query and, more weakly, the session's earlier queries. It only narrows what the planner reads:
 * the snapshot a plan is checked against is the session's whole catalog. Whenever the choice is
 * unsure (nothing matches well, or too many entries match alike), the planner reads every entry.
 */

/** Catalogs up to this size are shown whole (every benign suite's is). */
export const SELECT_ABOVE = 60;
/** How many of the best-scoring entries are shown (besides those the query names). */
export const KEEP = 40;
/** Past this many entries the whole catalog would crowd the planner's context: it always selects. */
export const ALWAYS_SELECT_ABOVE = 200;
/**
 * The best entry must score at least this: about one exact match of a word that only a few percent
 * of the entries use (BM25's idf is ln 20 ≈ 3 at 5%). Below it the query's words say little about
 * which entries it needs.
 */
export const MIN_SCORE = 2;
/** More than KEEP entries within this share of the best score: the query cannot tell them apart. */
export const TIE_SHARE = 0.9;
/** An earlier query's words count this much against the current query's. */
const EARLIER_WEIGHT = 0.3;
/** A word that only begins or ends like an entry's (email ~ mail) counts this much. */
const PARTIAL = 0.5;
const K1 = 1.2;
const B = 0.75;

const STOP = new Set(
  (
    "a an and any are as at be by can could do does for from get give how i in into is it its me my " +
    "of on or our please show that the their them then these this to us we what when where which " +
    "who will with would you your all also about tell let need want"
  ).split(" "),
);

/** Lower-case words, light suffix stripping so "invoices", "booked", "scheduling" meet their entries. */
function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!raw || STOP.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

function stem(w: string): string {
  let s = w;
  if (s.length > 4 && s.endsWith("ies")) s = `${s.slice(0, -3)}y`;
  else if (s.length > 4 && /(ches|shes|xes|sses)$/.test(s)) s = s.slice(0, -2);
  else if (s.length > 3 && s.endsWith("s") && !s.endsWith("ss")) s = s.slice(0, -1);
  if (s.length > 5 && s.endsWith("ing")) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith("ed")) s = s.slice(0, -2);
  if (s.length > 4 && s.endsWith("e")) s = s.slice(0, -1);
  return s;
}

export interface Selection {
  tools: PlannerTool[];
  /** The catalog's size, when the planner is shown part of it; null when it reads the whole catalog. */
  of: number | null;
}

/** The tools to show for a query, in catalog order. */
export function selectTools(
  tools: readonly PlannerTool[],
  query: string,
  earlierQueries: readonly string[] = [],
): Selection {
  const whole: Selection = { tools: [...tools], of: null };
  if (tools.length <= SELECT_ABOVE) return whole;
  const lower = query.toLowerCase();
  const named = new Set(tools.filter((t) => lower.includes(t.tool.toLowerCase())).map((t) => t.tool));
  const weights = new Map<string, number>();
  for (const q of earlierQueries)
    for (const t of terms(q)) weights.set(t, Math.max(weights.get(t) ?? 0, EARLIER_WEIGHT));
  for (const t of terms(query)) weights.set(t, 1);
  if (!weights.size) return whole;
  const scores = bm25(tools, weights);
  const ranked = tools
    .map((t, i) => ({ name: t.tool, i, score: scores[i]! }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const best = ranked[0]?.score ?? 0;
  // Unsure: the whole catalog, unless it is too large to show at all; then the best KEEP still.
  const huge = tools.length > ALWAYS_SELECT_ABOVE && ranked.length > 0;
  if (best < MIN_SCORE && !huge) return whole;
  if (ranked.filter((r) => r.score >= best * TIE_SHARE).length > KEEP && !huge) return whole;
  const keep = new Set([...ranked.slice(0, KEEP).map((r) => r.name), ...named]);
  return { tools: tools.filter((t) => keep.has(t.tool)), of: tools.length };
}

/** Each entry's BM25 score; the name's words count twice, as the strongest signal of what it does. */
function bm25(tools: readonly PlannerTool[], weights: ReadonlyMap<string, number>): Float64Array {
  const n = tools.length;
  // Postings: word → [entry, count] pairs, and each entry's length in words.
  const postings = new Map<string, Array<[number, number]>>();
  const lengths = tools.map((t, i) => {
    const name = terms(t.tool);
    const words = [...name, ...name, ...terms(t.description)];
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const [w, c] of counts) {
      const list = postings.get(w);
      if (list) list.push([i, c]);
      else postings.set(w, [[i, c]]);
    }
    return words.length;
  });
  const avg = lengths.reduce((a, b) => a + b, 0) / n || 1;
  const scores = new Float64Array(n);
  const best = new Float64Array(n);
  for (const [q, weight] of weights) {
    best.fill(0);
    for (const [w, list] of postings) {
      // The word itself, or one it begins or ends like (both of 4 letters or more).
      const strength =
        w === q
          ? 1
          : Math.min(w.length, q.length) >= 4 &&
              (w.startsWith(q) || q.startsWith(w) || w.endsWith(q) || q.endsWith(w))
            ? PARTIAL
            : 0;
      if (!strength) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [i, tf] of list) {
        const part = (strength * idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[i]!) / avg));
        if (part > best[i]!) best[i] = part;
      }
    }
    for (let i = 0; i < n; i++) scores[i] = scores[i]! + weight * best[i]!;
  }
  return scores;
}
