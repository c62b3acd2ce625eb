/**
 * Vouching: the two run-time remedies a tenant may allow for an argument whose value is below its
 * integrity floor, both decided on the concrete value against the query's trusted values.
 *
 * - `match: "trusted"` (a destination or control): the value exactly equals a trusted value. It is
 *   then a trusted value whose choice untrusted content may have steered, among `candidates`
 *   values (at most log2 of that many bits); the tenant accepts that for this argument. Equality is
 *   of code points: no case folding, trimming or Unicode normalisation, so a homoglyph, an
 *   invisible character or a stray space is a different value.
 * - `sanitise: "no-foreign-references"` (a payload): every reference the text writes (references.ts:
 *   whole links, hosts, e-mail addresses, IBANs, phone numbers, handles, wallets, IP literals) also
 *   occurs in a trusted value, and none is unreadable, so content may shape the words of a message
 *   but cannot add a place for the reader to go, call or pay.
 *
 * The verifier cannot know values, so it marks such a finding `deferred` (call-check.ts) and the
 * hub's gate decides here, with the same labels; what fails stays the violation it was. Labels
 * themselves never change: the call's output is labeled as verified.
 */
import { scalars } from "./destinations.ts";
import { ownGet } from "./json.ts";
import type { Label, Requirement } from "./labels.ts";
import type { Lattices } from "./lattice.ts";
import type { Policy } from "./policy-schema.ts";
import { isUnreadable, MAX_SCANNED, type Reference, references } from "./references.ts";

export type Remedy = "match" | "sanitise";

/** How a deferred finding was met; names places and counts, never a value. */
export type Vouch =
  | {
      readonly by: "match";
      readonly source: string;
      readonly candidates: number;
      /** Who held the matched values: `query`, a tool's `trustedValues`, or null (a bound value). */
      readonly origins: readonly (string | null)[];
      /** A matched value is the id of a record a call made from content (unasked.ts). */
      readonly contentMade: boolean;
    }
  | { readonly by: "sanitise"; readonly references: number };

/** The remedy the tenant allows for `argument` of `tool`, if any (the role checks are the policy schema's). */
export function remedyOf(policy: Policy, tool: string, argument: string | null): Remedy | null {
  if (argument === null) return null;
  const ap = ownGet(ownGet(policy.tools, tool)?.args, argument);
  if (ap?.match === "trusted" && (ap.role === "destination" || ap.role === "control")) return "match";
  if (ap?.sanitise === "no-foreign-references" && ap.role === "payload") return "sanitise";
  return null;
}

/**
 * A bound value of the query with its label, or the leaves a tool's `trustedValues` paths vouch
 * for (`trusted`, with that `tool`).
 */
export interface PoolSource {
  readonly name: string;
  readonly value: unknown;
  readonly label: Label;
  readonly tool?: string;
  readonly trusted?: readonly (string | number)[];
  /**
   * The `trusted` leaves name records a call made from content (an argument or the pc below the
   * top): a file's id whose words a q-llm wrote. Still matchable, but content's for stored answers.
   */
  readonly contentMade?: boolean;
}

interface Held {
  readonly integrity: number;
  readonly source: string;
  /** `query`, the tool whose `trustedValues` hold it, or null for a bound value at its label. */
  readonly origin: string | null;
  readonly contentMade: boolean;
}

/** A value held by several sources keeps one holder per origin (the best of each). */
const MAX_HOLDERS = 4;

/** Bounds on what one query's pool holds: past them a value is simply not trusted (fail closed). */
export const MAX_POOL_VALUES = 20_000;
const MAX_MATCHED_LENGTH = 2_000;
const MAX_POOL_TEXT = 1_000_000;

/** The query's trusted values: exact scalars, and (computed on first use) the references they write. */
export class TrustedPool {
  private readonly values = new Map<string, Held[]>();
  private readonly texts: Array<[string, Held]> = [];
  private refs: Map<Reference, Held> | null = null;

  constructor(l: Lattices, query: string, sources: Iterable<PoolSource>) {
    const top = l.integrity.levels.length - 1;
    const query_ = { integrity: top, source: "query", origin: "query", contentMade: false };
    this.add(query, query_);
    for (const token of query.split(/\s+/)) {
      this.add(token, query_);
      this.add(token.replace(EDGE_PUNCTUATION, ""), query_);
    }
    for (const s of sources) {
      const integrity = Math.max(l.integrity.rank(s.label.integrity), 0);
      for (const leaf of scalars(s.value))
        this.add(leaf, { integrity, source: s.name, origin: null, contentMade: false });
      // Trusted as values to match, never as text: a name or id vouches for no link written in it.
      const vouched = {
        integrity: top,
        source: s.name,
        origin: s.tool ?? null,
        contentMade: !!s.contentMade,
      };
      for (const leaf of s.trusted ?? []) this.add(leaf, vouched, false);
    }
  }

  private add(value: string | number, entry: Held, text = true): void {
    if (this.values.size >= MAX_POOL_VALUES || value === "") return;
    if (text && typeof value === "string") this.texts.push([value, entry]);
    if (typeof value === "string" && value.length > MAX_MATCHED_LENGTH) return;
    const key = keyOf(value);
    const holders = this.values.get(key) ?? [];
    const same = holders.findIndex((h) => h.origin === entry.origin);
    if (same >= 0) {
      const had = holders[same]!;
      // The best of an origin: the higher integrity, then a record content did not make.
      const better =
        had.integrity < entry.integrity ||
        (had.integrity === entry.integrity && had.contentMade && !entry.contentMade);
      if (better) holders[same] = entry;
    } else if (holders.length < MAX_HOLDERS) holders.push(entry);
    this.values.set(key, holders);
  }

  /**
   * The trusted holder of exactly this value at or above integrity rank `floor`, if any; with
   * `from`, only one whose origin is listed.
   */
  holder(value: string | number, floor: number, from?: readonly string[]): Held | null {
    const holders = this.values.get(keyOf(value)) ?? [];
    const ok = (h: Held) => h.integrity >= floor && (!from || (h.origin !== null && from.includes(h.origin)));
    // The user's words are added first; among the rest, a record content did not make.
    return holders.find((h) => ok(h) && !h.contentMade) ?? holders.find(ok) ?? null;
  }

  /** How many values are trusted at or above `floor`: the choice a steered match was made among. */
  count(floor: number): number {
    let n = 0;
    for (const holders of this.values.values()) if (holders.some((h) => h.integrity >= floor)) n++;
    return n;
  }

  /**
   * Every string value held at or above `floor`, with where it came from (`query`, a tool's
   * `trustedValues`, or null: a bound answer the policy labels that trusted): what a consent view
   * compares a shown value with. A named holder is preferred, so a person reads where it came from.
   */
  trustedStrings(floor: number): Array<{ value: string; origin: string | null }> {
    const out: Array<{ value: string; origin: string | null }> = [];
    for (const [key, holders] of this.values) {
      if (!key.startsWith("s:")) continue;
      const trusted = holders.filter((h) => h.integrity >= floor);
      const held = trusted.find((h) => h.origin !== null) ?? trusted[0];
      if (held) out.push({ value: key.slice(2), origin: held.origin });
    }
    return out;
  }

  /**
   * The trusted holder of a reference at or above `floor`, if any. A link is held only as the
   * same whole link (references.ts), and what could not be read is held by nobody: fail closed.
   */
  reference(ref: Reference, floor: number): Held | null {
    if (isUnreadable(ref)) return null;
    const held = this.references().get(ref);
    return held && held.integrity >= floor ? held : null;
  }

  private references(): Map<Reference, Held> {
    if (this.refs) return this.refs;
    const refs = new Map<Reference, Held>();
    let scanned = 0;
    for (const [text, held] of this.texts) {
      scanned += text.length;
      if (scanned > MAX_POOL_TEXT) break;
      for (const ref of references(text)) {
        const had = refs.get(ref);
        if (!had || had.integrity < held.integrity) refs.set(ref, held);
      }
    }
    this.refs = refs;
    return refs;
  }
}

/** Quotes, brackets and sentence punctuation around a word of the query ("general," → "general"). */
const EDGE_PUNCTUATION = /^[\s"'`“”‘’«»()[\]{}<>,;:!?.]+|[\s"'`“”‘’«»()[\]{}<>,;:!?.]+$/gu;

/** Strings and numbers never equal each other: `"100"` from one app is not the amount 100. */
function keyOf(value: string | number): string {
  return typeof value === "number" ? `n:${value}` : `s:${value}`;
}

/**
 * Whether the tenant's remedy for this argument holds of its concrete value: the finding it was
 * deferred for is then met. Null leaves the finding as it was (refused under `reject`, asked under
 * `ask`). `destination`: the argument is one of the call's destinations, where a payload rule never
 * applies.
 */
export function vouch(input: {
  readonly l: Lattices;
  readonly policy: Policy;
  readonly tool: string;
  readonly argument: string;
  readonly destination: boolean;
  readonly value: unknown;
  readonly required: Requirement;
  readonly pool: () => TrustedPool;
}): Vouch | null {
  const { l, required } = input;
  const remedy = remedyOf(input.policy, input.tool, input.argument);
  const floor = l.integrity.rank(required.minIntegrity);
  if (remedy === null || floor < 0) return null;
  if (remedy === "match") {
    const wanted = matchable(input.value);
    if (!wanted) return null;
    const pool = input.pool();
    const from = ownGet(ownGet(input.policy.tools, input.tool)?.args, input.argument)?.from;
    const holders = wanted.map((v) => pool.holder(v, floor, from));
    if (holders.some((h) => h === null)) return null;
    const held = holders as Held[];
    return {
      by: "match",
      source: held[0]!.source,
      candidates: pool.count(floor),
      origins: [...new Set(held.map((h) => h.origin))],
      contentMade: held.some((h) => h.contentMade),
    };
  }
  if (input.destination) return null;
  const text = scalars(input.value)
    .filter((s): s is string => typeof s === "string")
    .join("\n");
  // Refused whole rather than checked in part.
  if (text.length > MAX_SCANNED) return null;
  const refs = references(text);
  if (refs.size > 0) {
    const pool = input.pool();
    for (const ref of refs) if (!pool.reference(ref, floor)) return null;
  }
  return { by: "sanitise", references: refs.size };
}

/** A scalar, or a non-empty list of scalars (several recipients): booleans and objects are never matched. */
function matchable(value: unknown): Array<string | number> | null {
  if (typeof value === "string" || typeof value === "number") return value === "" ? null : [value];
  if (!Array.isArray(value) || value.length === 0) return null;
  return value.every((v) => (typeof v === "string" && v !== "") || typeof v === "number") ? value : null;
}
