import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { buildSync } from "esbuild";
import { defineConfig } from "vitest/config";

// The demo apps are a separate Worker. Tests run it beside the API as an auxiliary worker and route
// the API's outbound fetches to it, so spokes make real HTTP calls to real (demo) app endpoints.
const demoAppsScript = ".wrangler/test-build/demo-apps.mjs";
buildSync({
  entryPoints: ["examples/apps/src/index.ts"],
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2023",
  outfile: demoAppsScript,
  external: ["cloudflare:*"],
  logLevel: "warning",
});

// Two projects: the pure policy core runs in plain Node (it must not need the runtime),
// everything else runs inside workerd through the Workers pool.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "policy",
          include: ["test/policy/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: { LATTICE_OPERATOR_SECRET: "test-operator-secret", LATTICE_MODE: "dev" },
              serviceBindings: { DEMO_APPS: "demo-apps" },
              outboundService: "demo-apps",
              workers: [
                {
                  name: "demo-apps",
                  modules: true,
                  scriptPath: demoAppsScript,
                  compatibilityDate: "2026-08-15",
                  durableObjects: { WORLDS: { className: "DemoWorld", useSQLite: true } },
                },
              ],
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          setupFiles: ["test/worker/setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
