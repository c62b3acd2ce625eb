/**
 * Paths name a place in a plan or policy document: `steps[3].then[0].args.to`. Steps have no ids of
 * their own; a step's id is its path, which is unique, stable for a given plan, and cannot be
 * forged or duplicated by the planner.
 */

export type PathSegment = string | number;

/** `[A-Za-z_$][A-Za-z0-9_$]*`, by char codes: this runs for every step of every plan. */
function isIdentifier(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

/** Appends one segment: numbers as `[i]`, identifiers as `.key`, anything else as `["key"]`. */
export function childPath(base: string, segment: PathSegment): string {
  if (typeof segment === "number") return `${base}[${segment}]`;
  if (isIdentifier(segment)) return base === "" ? segment : `${base}.${segment}`;
  return `${base}[${JSON.stringify(segment)}]`;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) out = childPath(out, s);
  return out;
}
