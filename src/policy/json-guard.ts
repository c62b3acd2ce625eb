/**
 * A cheap pass over a raw plan or policy before its schema check. It guarantees the rest of the
 * validator works on a bounded, acyclic, plain JSON tree, and it refuses `__proto__` keys: an
 * own `__proto__` key survives JSON.parse but not a copy by assignment, so a plan could
 * otherwise carry an argument that some later copy silently drops or turns into a prototype.
 */
import { formatPath, type PathSegment } from "./paths.ts";
import type { PlanError } from "./plan-errors.ts";

/** Far above any plan the limits allow (maxDepth ≤ 32), low enough for recursion to be safe. */
export const MAX_JSON_DEPTH = 256;
export const MAX_JSON_NODES = 2_000_000;

interface Problem {
  readonly message: string;
  /** Filled in reverse while the recursion unwinds; built only on failure. */
  readonly path: PathSegment[];
}

function problem(message: string): Problem {
  return { message, path: [] };
}

/** Recursion is bounded by MAX_JSON_DEPTH, checked before descending. */
function walk(v: unknown, depth: number, budget: { nodes: number }): Problem | undefined {
  if (--budget.nodes < 0) return problem(`the document has more than ${MAX_JSON_NODES} JSON values`);
  if (v === null || typeof v === "string" || typeof v === "boolean") return undefined;
  if (typeof v === "number") return Number.isFinite(v) ? undefined : problem(`${v} is not a JSON number`);
  if (typeof v !== "object") return problem(`a value of type ${typeof v} is not JSON`);
  if (depth >= MAX_JSON_DEPTH) return problem(`the document nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = walk(v[i], depth + 1, budget);
      if (p) {
        p.path.push(i);
        return p;
      }
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return problem("a non-plain object is not JSON");
  // for-in with an own-key test: no key array allocated per object.
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    if (key === "__proto__") return problem('the key "__proto__" is not allowed');
    const p = walk((v as Record<string, unknown>)[key], depth + 1, budget);
    if (p) {
      p.path.push(key);
      return p;
    }
  }
  return undefined;
}

/** The first reason `input` is not a plain JSON tree within the caps, or undefined. */
export function jsonShapeError(input: unknown): PlanError | undefined {
  const p = walk(input, 0, { nodes: MAX_JSON_NODES });
  return p && { path: formatPath(p.path.reverse()), rule: "json", message: p.message };
}
