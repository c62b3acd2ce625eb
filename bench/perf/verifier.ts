/**
 * Verifier scaling is measured by bench/policy.ts (owned by the policy core); this bench only folds
 * its figures into the report. It reuses bench/results/policy.json when that is fresh (`npm run bench`
 * has just written it), and runs bench/policy.ts itself otherwise.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";

const FILE = "bench/results/policy.json";
/** Older figures than this are re-measured rather than reported as current. */
const FRESH_MS = 6 * 60 * 60_000;

export interface VerifierRow {
  steps: number;
  medianMs: number;
  validateMedianMs?: number;
  verifyMedianMs?: number;
  usPerStep?: number;
}

export interface VerifierFigures {
  source: string;
  measuredAt: string;
  rerun: boolean;
  rows: VerifierRow[];
  linearity?: number;
}

export function verifierFigures(forceRun: boolean): VerifierFigures {
  const stale = !existsSync(FILE) || Date.now() - statSync(FILE).mtimeMs > FRESH_MS;
  if (forceRun || stale) {
    // The same Node that runs this bench (the project's Node 22, which strips types).
    const run = spawnSync(process.execPath, ["bench/policy.ts"], { stdio: ["ignore", "ignore", "inherit"] });
    if (run.status !== 0) throw new Error(`bench/policy.ts failed with status ${run.status}`);
  }
  const json = JSON.parse(readFileSync(FILE, "utf8")) as {
    date?: string;
    results?: VerifierRow[];
    linearity?: number;
  };
  const figures: VerifierFigures = {
    source: FILE,
    measuredAt: json.date ?? statSync(FILE).mtime.toISOString(),
    rerun: forceRun || stale,
    rows: (json.results ?? []).map((r) => ({
      steps: r.steps,
      medianMs: r.medianMs,
      validateMedianMs: r.validateMedianMs,
      verifyMedianMs: r.verifyMedianMs,
      usPerStep: r.usPerStep,
    })),
  };
  if (json.linearity !== undefined) figures.linearity = json.linearity;
  return figures;
}
