/**
 * `npm run demo`: a vitest config of its own (so `npm test` never runs the demo). It reuses the
 * project config's "workers" project as is — the API Worker in workerd with the demo apps and the
 * fake model server as auxiliary workers — and swaps in the demo's files and its reporter.
 */
import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import base from "../../vitest.config.ts";
import { DemoReporter } from "./reporter.ts";

const workers = base.test?.projects?.find(
  (p): p is TestProjectInlineConfiguration =>
    typeof p === "object" && "test" in p && p.test?.name === "workers",
);
if (!workers) throw new Error('vitest.config.ts has no "workers" project to run the demo in');

export default defineConfig({
  // Paths in the shared project (wrangler.toml, setup files) are relative to the repository root.
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    reporters: [new DemoReporter()],
    projects: [
      {
        ...workers,
        test: {
          ...workers.test,
          name: "demo",
          include: ["bench/demo/**/*.demo.ts"],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
