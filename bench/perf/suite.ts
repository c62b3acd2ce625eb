/**
 * `npm run bench`: every benchmark in sequence — the policy core (bench/policy.ts), performance
 * (bench:perf, which then reuses the policy figures just written), and security (bench:security)
 * when package.json defines it. Each runs even if an earlier one failed; the exit status says
 * whether all passed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { goalRows, goalsTable } from "./goals.ts";

const scripts =
  (JSON.parse(readFileSync("package.json", "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const steps: Array<{ name: string; command: string; args: string[] }> = [
  scripts["bench:policy"]
    ? { name: "policy", command: npm, args: ["run", "bench:policy"] }
    : { name: "policy", command: process.execPath, args: ["bench/policy.ts"] },
  { name: "perf", command: npm, args: ["run", "bench:perf"] },
  { name: "catalog growth", command: process.execPath, args: ["bench/perf/catalog-growth.ts"] },
];
if (scripts["bench:security"])
  steps.push({ name: "security", command: npm, args: ["run", "bench:security"] });

const failed: string[] = [];
for (const step of steps) {
  console.log(`\n=== bench: ${step.name} ===`);
  const run = spawnSync(step.command, step.args, { stdio: "inherit" });
  if (run.status !== 0) failed.push(`${step.name} (${run.status ?? run.signal})`);
}
// Issue #16's goals against the figures just written (perf, security, catalog growth).
if (existsSync("bench/results/perf.json")) {
  const perf = JSON.parse(readFileSync("bench/results/perf.json", "utf8")) as Parameters<typeof goalRows>[0];
  console.log(`\n=== bench: goals ===\n${goalsTable(goalRows(perf))}`);
}
console.log(
  `\n=== bench: ${failed.length ? `failed: ${failed.join(", ")}` : "all done"}; figures in bench/results/ ===`,
);
process.exit(failed.length ? 1 : 0);
