/**
 * A `select` step's value (DSL.md, "Selecting without a reader"): a filter and an order over typed
 * fields, computed here with no model, so an item's free text (a provider's note) is never read and
 * cannot move the pick. Where the data does not fit (a field missing, of the wrong type, types
 * mixed) the step fails with a code rather than guessing an order.
 */
import type { PathElement, SelectPick } from "../policy/index.ts";
import { StepFailure } from "./failure.ts";
import { jsonEqual } from "./values.ts";

/** More items than this fails the step: a comparison is over answers and results, not a data set. */
export const SELECT_MAX_ITEMS = 1000;

export interface SelectInput {
  readonly key: string;
  readonly over: unknown;
  readonly where: readonly { readonly path: readonly PathElement[]; readonly equals: unknown }[];
  readonly by: readonly PathElement[] | undefined;
  readonly pick: SelectPick;
}

/**
 * The items of `over`: an array as it is; an object as its entries `{key, value}`, sorted by key
 * (UTF-16 code units, the order a `providers: "all"` result already has), so which provider an
 * item came from stays with it and the order never depends on how the object was built.
 */
function itemsOf(key: string, over: unknown): unknown[] {
  if (Array.isArray(over)) return over;
  if (over !== null && typeof over === "object") {
    const keys = Object.keys(over).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return keys.map((k) => ({ key: k, value: (over as Record<string, unknown>)[k] }));
  }
  throw new StepFailure("select_over_invalid", `${key}: select.over is neither a list nor an object`);
}

function fieldAt(key: string, item: unknown, index: number, path: readonly PathElement[]): unknown {
  let current = item;
  for (const seg of path) {
    const here = current as Record<string | number, unknown>;
    const present =
      typeof seg === "number"
        ? Array.isArray(current) && seg < current.length
        : current !== null &&
          typeof current === "object" &&
          !Array.isArray(current) &&
          Object.hasOwn(current, seg);
    if (!present) {
      throw new StepFailure(
        "select_field_missing",
        `${key}: item ${index} has no field ${JSON.stringify(path)}`,
      );
    }
    current = here[seg];
  }
  return current;
}

/** Strings in code point order: for ISO 8601 dates of one format and offset, that is time order. */
function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return p.done && q.done ? 0 : p.done ? -1 : 1;
    const d = (p.value.codePointAt(0) as number) - (q.value.codePointAt(0) as number);
    if (d !== 0) return d;
  }
}

export function selectValue(input: SelectInput): unknown {
  const { key, where, by, pick } = input;
  const items = itemsOf(key, input.over);
  if (items.length > SELECT_MAX_ITEMS) {
    throw new StepFailure(
      "select_too_long",
      `${key}: ${items.length} items exceed the limit of ${SELECT_MAX_ITEMS}`,
    );
  }
  const kept = items
    .map((item, index) => ({ item, index }))
    .filter(({ item, index }) => where.every((w) => jsonEqual(fieldAt(key, item, index, w.path), w.equals)));
  if (pick === "all" || by === undefined) return kept.map((k) => k.item);
  const keyed = kept.map(({ item, index }) => ({ item, index, v: fieldAt(key, item, index, by) }));
  // One type for the whole list: a number never compares with a string, and nothing else compares.
  const type = typeof keyed[0]?.v;
  for (const { v, index } of keyed) {
    if ((typeof v !== "number" && typeof v !== "string") || typeof v !== type) {
      throw new StepFailure(
        "select_field_type",
        `${key}: item ${index}'s field ${JSON.stringify(by)} does not compare: every item's must be a number, or every item's a string`,
      );
    }
  }
  const cmp = (a: unknown, b: unknown): number =>
    typeof a === "number" ? a - (b as number) : compareCodePoints(a as string, b as string);
  const sign = pick === "max" || pick === "desc" ? -1 : 1;
  // Stable: equal fields keep list order, so a tie goes to the earlier item in either direction.
  const ordered = [...keyed].sort((a, b) => sign * cmp(a.v, b.v) || a.index - b.index);
  if (pick === "asc" || pick === "desc") return ordered.map((k) => k.item);
  const first = ordered[0];
  if (!first) throw new StepFailure("select_empty", `${key}: no item to pick the ${pick} of`);
  return first.item;
}
