/**
 * A user's export (#34) is one JSON document under one byte budget: each object it reads from is
 * given what is left of it and builds no more, so neither an object nor the route that joins them
 * holds more than the budget, however long the user's history.
 */

/** The export's size at most (JSON, UTF-8): past it, `truncated` says what was left out. */
export const EXPORT_MAX_BYTES = 8 * 1024 * 1024;

/** The UTF-8 size of a value as JSON: what it adds to an export. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").length;
}
