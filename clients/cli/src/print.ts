import type { Problem } from "./api.ts";

/** POST /v1/admin/config/diff's answer (the API's ConfigDiffResult). */
export interface DiffResult {
  etag: string;
  diff: { identical: boolean; policy: Change[]; catalog: Change[]; apps: Change[] };
  problems: Problem[];
}
export interface Change {
  path: string;
  change: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}
/** PUT /v1/admin/config's answer (the API's ConfigImported). */
export interface Imported {
  etag: string;
  applied: Change[];
  broken: Array<{ app: string; functionality: string; entry: string }>;
}

const MARK = { added: "+", removed: "-", changed: "~" } as const;

/** The diff as lines: per section, `+` added, `-` removed, `~` changed (before → after). */
export function changeLines(result: DiffResult): string {
  const { diff } = result;
  if (diff.identical) return "no changes: the tenant is as the document says\n";
  let text = "";
  for (const section of ["policy", "catalog", "apps"] as const) {
    if (!diff[section].length) continue;
    text += `${section}\n`;
    for (const c of diff[section]) {
      const value =
        c.change === "changed"
          ? `${shown(c.before)} → ${shown(c.after)}`
          : shown(c.change === "added" ? c.after : c.before);
      text += `  ${MARK[c.change]} ${c.path}: ${value}\n`;
    }
  }
  const n = diff.policy.length + diff.catalog.length + diff.apps.length;
  return `${text}${n} change${n === 1 ? "" : "s"}\n`;
}

/** A value on one line, cut at 100 characters (the document holds the rest). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
