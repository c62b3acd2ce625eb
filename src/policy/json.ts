/** Small helpers for reading untrusted JSON without touching prototypes. */
import type { PathSegment } from "./paths.ts";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `obj[key]` only if it is an own property: `catalog["constructor"]` must be "not found", never
 * `Object.prototype.constructor`.
 */
export function ownGet<T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** The value at a path, or undefined where the path leaves the document. */
export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let v = root;
  for (const seg of path) {
    if (typeof seg === "number") {
      if (!Array.isArray(v) || seg >= v.length) return undefined;
      v = v[seg];
    } else {
      if (!isRecord(v) || !Object.hasOwn(v, seg)) return undefined;
      v = v[seg];
    }
  }
  return v;
}

/** Freezes a JSON-shaped value in place, so a parsed document cannot change after it was checked. */
export function deepFreeze<T>(v: T): T {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== "object" || x === null || Object.isFrozen(x)) continue;
    Object.freeze(x);
    for (const child of Object.values(x)) stack.push(child);
  }
  return v;
}
