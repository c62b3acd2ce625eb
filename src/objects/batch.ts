/** Splitting what one Durable Object call would carry into calls of a bounded size (pure). */

/** Consecutive batches whose values' JSON stays within `max` characters (an item larger goes alone). */
export function bySize<T extends { value: unknown }>(items: readonly T[], max: number): T[][] {
  const batches: T[][] = [];
  let size = Infinity;
  for (const item of items) {
    const n = JSON.stringify(item.value ?? null).length;
    if (size + n > max) {
      batches.push([]);
      size = 0;
    }
    batches[batches.length - 1]!.push(item);
    size += n;
  }
  return batches;
}
