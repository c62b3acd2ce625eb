/**
 * npm run build (and prepack): @lattice/client as plain ESM with type declarations in dist/, so it
 * installs anywhere without a TypeScript-aware bundler. The repo itself imports the source (the
 * `lattice-source` export condition), so nothing in it waits on this build; dist/ is not committed.
 * test/contract/client-package.test.ts packs, installs and uses the result.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { buildSync } from "esbuild";

const ROOT = import.meta.dirname;
const DIST = join(ROOT, "dist");
export const ENTRIES = ["index", "verify"];

rmSync(DIST, { recursive: true, force: true });
// One file an entry point; openapi-fetch stays a dependency (installed beside it, not bundled).
buildSync({
  absWorkingDir: ROOT,
  entryPoints: ENTRIES.map((e) => `src/${e}.ts`),
  outdir: "dist",
  bundle: true,
  packages: "external",
  format: "esm",
  platform: "neutral",
  target: "es2022",
  logLevel: "warning",
});

// Declarations by tsc; the generated schema is a .d.ts already, copied as it is.
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });
copyFileSync(join(ROOT, "src/schema.d.ts"), join(DIST, "schema.d.ts"));
// tsc keeps the source's `.ts` specifiers in declarations: published ones name the emitted files.
for (const file of readdirSync(DIST).filter((f) => f.endsWith(".d.ts") && f !== "schema.d.ts")) {
  const path = join(DIST, file);
  const text = readFileSync(path, "utf8").replace(/(from "\.\/[\w-]+)(\.d)?\.ts"/g, '$1.js"');
  writeFileSync(path, text);
}
// On stderr: `npm pack --json` prints its JSON on stdout, after this script's output.
console.error(`built ${DIST}: ${readdirSync(DIST).sort().join(", ")}`);
