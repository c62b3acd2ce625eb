import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

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
