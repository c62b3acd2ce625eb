/**
 * npm run deploy:check [-- --json]
 * What `wrangler deploy` would upload, without a Cloudflare account: `wrangler deploy --dry-run` for
 * the API Worker and the demo apps, and the API bundle's gzip size against Lattice's own budget of
 * 1 MiB. Cloudflare accepts up to 10 MB on the paid plan Durable Objects need, but a Worker's cold
 * start grows with its size, so the budget is ours (docs/deploy.md). Exits 1 past the budget or if
 * a dry run fails. CI runs it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_GZIP_BYTES = 1024 * 1024;

interface Metafile {
  inputs: Record<string, { bytes: number }>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

interface Sized {
  worker: string;
  bytes: number;
  gzipBytes: number;
  /** The largest contributors to the bundle, by package (or `src` for Lattice's own code). */
  largest: { name: string; bytes: number }[];
}

function dryRun(worker: string, config: string): Sized {
  const out = mkdtempSync(join(tmpdir(), "lattice-deploy-"));
  try {
    const run = spawnSync(
      "npm",
      [
        "exec",
        "--",
        "wrangler",
        "deploy",
        "--dry-run",
        "-c",
        config,
        "--outdir",
        out,
        "--metafile",
        join(out, "meta.json"),
      ],
      {
        encoding: "utf8",
        env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
      },
    );
    if (run.status !== 0)
      throw new Error(`wrangler deploy --dry-run (${worker}) failed:\n${run.stderr}${run.stdout}`);
    const code = readFileSync(join(out, "index.js"));
    const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8")) as Metafile;
    return { worker, bytes: code.byteLength, gzipBytes: gzipSync(code).byteLength, largest: byPackage(meta) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function byPackage(meta: Metafile): { name: string; bytes: number }[] {
  const totals = new Map<string, number>();
  for (const output of Object.values(meta.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      // Outside node_modules: the first folder under the config's own, so `src` is Lattice's code.
      const name = match ? match[1]! : (path.replace(/^(\.\.\/)+/, "").split("/")[0] ?? path);
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

const results = [
  dryRun("lattice", "wrangler.toml"),
  dryRun("lattice-demo-apps", "examples/apps/wrangler.toml"),
];
const api = results[0]!;
const withinBudget = api.gzipBytes <= BUDGET_GZIP_BYTES;

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ budgetGzipBytes: BUDGET_GZIP_BYTES, withinBudget, results }, null, 2));
} else {
  for (const r of results) {
    console.log(`${r.worker}: ${kib(r.bytes)}, gzip ${kib(r.gzipBytes)}`);
    console.log(`  largest: ${r.largest.map((p) => `${p.name} ${kib(p.bytes)}`).join(", ")}`);
  }
  console.log(
    `API Worker gzip ${kib(api.gzipBytes)} of the ${kib(BUDGET_GZIP_BYTES)} budget: ${withinBudget ? "within" : "OVER"}`,
  );
}
process.exit(withinBudget ? 0 : 1);
