/** Small statistics and table helpers for the performance bench. */

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile: with fewer than 100 samples p99 is the maximum, which we say in the report. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(mean),
  };
}

/** Least-squares line through (x, y): the per-unit cost and the fixed cost. */
export function fitLine(points: ReadonlyArray<readonly [number, number]>): {
  slope: number;
  intercept: number;
} {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  const slope = den === 0 ? 0 : num / den;
  return { slope: round(slope), intercept: round(my - slope * mx) };
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A plain-text table (Markdown-compatible), so the report can be pasted into a PR or README. */
export function table(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = [head, ...rows].map((r) => r.map((c) => String(c)));
  // At least 3 wide, as Biome formats Markdown tables, so a printed table pastes into a README as is.
  const widths = head.map((_, i) => Math.max(3, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const rule = `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join("\n");
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
