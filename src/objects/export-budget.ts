/**
 * A user's export (#34) is one JSON document under one byte budget: each object it reads from (the
 * user's artifacts, each session's hub, each app's spoke) is given what is left of it and builds no
 * more, so a long history costs neither an object nor the route much more than the budget. What
 * goes past it: the audit rows (capped by count) and each app's name and connections (a few hundred
 * bytes an app), always named.
 */

/** The export's size at most (JSON, UTF-8): past it, `truncated` says what was left out. */
export const EXPORT_MAX_BYTES = 8 * 1024 * 1024;

/** The UTF-8 size of a value as JSON: what it adds to an export. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").length;
}
