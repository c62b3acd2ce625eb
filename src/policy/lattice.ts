/**
 * Security lattices. Lattice uses two tenant-configured total orders: one for confidentiality
 * (how secret a value is) and one for integrity (how much its content can be trusted).
 * A total order is a list of distinct level names, lowest first.
 */

export interface Label {
  readonly confidentiality: string;
  readonly integrity: string;
}

export const DEFAULT_CONFIDENTIALITY: readonly string[] = ["public", "internal", "confidential", "secret"];
export const DEFAULT_INTEGRITY: readonly string[] = ["untrusted", "app", "user"];

/** One total order of level names. */
export interface Lattice {
  /** Level names, lowest first; never empty, no duplicates. */
  readonly levels: readonly string[];
  readonly bottom: string;
  readonly top: string;
  /** Position of a level (0 = bottom), or -1 if the name is not a level of this lattice. */
  rank(level: string): number;
}

/** The tenant's two lattices. */
export interface Lattices {
  readonly confidentiality: Lattice;
  readonly integrity: Lattice;
  /**
   * Every label of this pair of lattices, interned: `labels[c][i]` has confidentiality rank `c` and
   * integrity rank `i`. Joins return these, so the verifier allocates no labels and most joins
   * are an identity check.
   */
  readonly labels: readonly (readonly Label[])[];
}

/**
 * Why a list of names is not a total order, or undefined if it is one. Used by the policy schema
 * so that the message a tenant admin sees and the check `makeLattice` relies on are the same.
 */
export function totalOrderProblem(levels: readonly string[]): string | undefined {
  if (levels.length === 0) return "a lattice needs at least one level";
  const seen = new Set<string>();
  for (const level of levels) {
    if (level.length === 0) return "level names must not be empty";
    if (seen.has(level)) return `level "${level}" appears twice, so the levels are not a total order`;
    seen.add(level);
  }
  return undefined;
}

/** Builds a lattice; throws on a list that is not a total order (a programming error: policies are parsed first). */
export function makeLattice(levels: readonly string[]): Lattice {
  const problem = totalOrderProblem(levels);
  if (problem !== undefined) throw new Error(`invalid lattice: ${problem}`);
  const ranks = new Map<string, number>();
  levels.forEach((level, i) => {
    ranks.set(level, i);
  });
  const frozen = Object.freeze([...levels]);
  return {
    levels: frozen,
    bottom: frozen[0] as string,
    top: frozen[frozen.length - 1] as string,
    rank: (level) => ranks.get(level) ?? -1,
  };
}

export function makeLattices(confidentiality: readonly string[], integrity: readonly string[]): Lattices {
  const conf = makeLattice(confidentiality);
  const integ = makeLattice(integrity);
  const labels = conf.levels.map((c) =>
    Object.freeze(integ.levels.map((i): Label => Object.freeze({ confidentiality: c, integrity: i }))),
  );
  return { confidentiality: conf, integrity: integ, labels: Object.freeze(labels) };
}

export const DEFAULT_LATTICES: Lattices = makeLattices(DEFAULT_CONFIDENTIALITY, DEFAULT_INTEGRITY);

/**
 * The highest of some levels of a lattice; a name that is not one of its levels counts as the top
 * (a level reported by another component that this policy does not know is never read as low).
 * `fallback` when there are none.
 */
export function highest(lattice: Lattice, levels: readonly string[], fallback: string): string {
  if (levels.length === 0) return fallback;
  let rank = 0;
  for (const level of levels) {
    const r = lattice.rank(level);
    rank = Math.max(rank, r < 0 ? lattice.levels.length - 1 : r);
  }
  return lattice.levels[rank]!;
}
