import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { buildSync } from "esbuild";
import { defineConfig } from "vitest/config";

// The demo apps are a separate Worker. Tests run it beside the API as an auxiliary worker and route
// the API's outbound fetches to it, so spokes make real HTTP calls to real (demo) app endpoints.
// A fake OpenAI-compatible server (test double) runs the same way; a tiny router splits the traffic.
function bundle(entry: string, name: string): string {
  const outfile = `.wrangler/test-build/${name}.mjs`;
  buildSync({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    outfile,
    external: ["cloudflare:*"],
    // As wrangler bundles for workerd: packages with a workerd build (the MCP SDK's shims) use it.
    conditions: ["workerd", "worker", "browser"],
    logLevel: "warning",
  });
  return outfile;
}
const FAKE_OPENAI_HOST = "fake-openai.test";
// Real MCP servers (test/fixtures/mcp-servers.ts) listen on loopback on ports of this run's own.
const mcpBase = 20_000 + (process.pid % 20_000) * 2;
process.env.LATTICE_TEST_MCP_EVERYTHING_PORT ??= String(mcpBase);
process.env.LATTICE_TEST_MCP_MEMORY_PORT ??= String(mcpBase + 1);
// The OTLP receiver fixture (test/fixtures/otlp-receiver.ts) for the traces project.
process.env.LATTICE_TEST_OTLP_PORT ??= String(mcpBase + 2);
const OTLP_HOST = `127.0.0.1:${process.env.LATTICE_TEST_OTLP_PORT}`;
const MCP_HOSTS = [
  `127.0.0.1:${process.env.LATTICE_TEST_MCP_EVERYTHING_PORT}`,
  `127.0.0.1:${process.env.LATTICE_TEST_MCP_MEMORY_PORT}`,
  OTLP_HOST,
];
// The OAuth 2.1 authorization server fixture (a test double) with its protected MCP server.
const OAUTH_HOST = "127.0.0.1:8790";
const testNetwork = `const MCP = ${JSON.stringify(MCP_HOSTS)};
// The traceparent each app call carried, by its call id (X-Lattice-Call), for the traces test.
const seen = new Map();
export default { fetch(request, env) {
  const url = new URL(request.url);
  if (url.host === "network.test" && url.pathname === "/traceparents")
    return Response.json(Object.fromEntries(seen));
  const call = request.headers.get("x-lattice-call");
  if (call && request.headers.has("traceparent") && seen.size < 1000) seen.set(call, request.headers.get("traceparent"));
  if (url.host === "${OAUTH_HOST}") return env.OAUTH.fetch(request);
  if (MCP.includes(url.host)) return fetch(request);
  return url.hostname === "${FAKE_OPENAI_HOST}" ? env.OPENAI.fetch(request) : env.APPS.fetch(request);
} };`;

// Four projects: the pure policy core and query runtime run in plain Node (they must not need the
// Workers runtime), the console's browser tests in Node against wrangler dev, everything else
// inside workerd through the Workers pool.
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
        test: {
          name: "runtime",
          include: [
            "test/runtime/**/*.test.ts",
            "test/apps/**/*.test.ts",
            "test/llm/**/*.test.ts",
            "test/contract/**/*.test.ts",
            // The console's browser modules that need no DOM (its flows are the console project's).
            "test/console-logic/**/*.test.ts",
            "test/bench/**/*.test.ts",
            // Each AgentDojo suite keeps its Node tests in its own folder, beside its apps and tasks.
            "bench/security/agentdojo/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        // The web console in Debian's Chromium against the API and demo apps under wrangler dev.
        test: {
          name: "console",
          include: [
            "test/console/**/*.test.ts",
            "clients/typescript/test/**/*.test.ts",
            "clients/cli/test/**/*.test.ts",
            "examples/frontends/*.test.ts",
          ],
          environment: "node",
          globalSetup: ["test/console/stack.ts"],
          // One browser at a time: the files share one stack, and the machine's cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // A page's answers wait on the API under wrangler dev: on a loaded CI machine, more than 1 s.
          expect: { poll: { timeout: 10_000 } },
          // A browser against a live stack on a shared 2-core machine: one retry, reported as such by
          // vitest. A query's failure is asserted with its error text (kit.ts `ended`), so a retried
          // failure still says why in the log.
          retry: 1,
        },
      },
      workersProject("workers", ["test/worker/**/*.test.ts"], {}, ["test/fixtures/mcp-servers.ts"]),
      // Tracing on (LATTICE_OTLP_ENDPOINT), exporting to the local receiver fixture: only here, so
      // the other Workers tests pay nothing for it and log no span lines.
      workersProject(
        "workers-traces",
        ["test/worker-traces/**/*.test.ts"],
        {
          LATTICE_OTLP_ENDPOINT: `http://${OTLP_HOST}/v1/traces`,
          LATTICE_OTLP_HEADERS: "x-fixture=lattice",
          LATTICE_TRACE_APPS: "on",
          TEST_OTLP_RECEIVER: `http://${OTLP_HOST}`,
          ...(process.env.TEST_PRINT_TRACE && { TEST_PRINT_TRACE: "1" }),
        },
        ["test/fixtures/otlp-receiver.ts"],
      ),
    ],
  },
});

/** The Workers pool project: the production Worker with its test doubles beside it, bindings added. */
function workersProject(
  name: string,
  include: string[],
  bindings: Record<string, string>,
  globalSetup: string[],
) {
  return {
    plugins: [
      cloudflareTest({
        // The production Worker, with a hub that carries the tests' hooks (advance, instanceId).
        main: "./test/worker/entry.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            LATTICE_OPERATOR_SECRET: "test-operator-secret",
            LATTICE_KEY_SECRET: "test-key-secret",
            LATTICE_MODE: "dev",
            LATTICE_PUBLIC_URL: "http://lattice.test",
            // The principal cache's revocation bound, short so a test can wait it out.
            LATTICE_PRINCIPAL_TTL_MS: "1000",
            TEST_MCP_EVERYTHING_URL: `http://${MCP_HOSTS[0]}/mcp`,
            TEST_MCP_MEMORY_URL: `http://${MCP_HOSTS[1]}/mcp`,
            ...bindings,
          },
          serviceBindings: {
            // Workers AI as a FAKE (the real binding is remote and needs an account; docs/models.md).
            AI: { name: "fake-ai", entrypoint: "FakeAi" },
            DEMO_APPS: "demo-apps",
            FAKE_OPENAI: "fake-openai",
            OAUTH_FIXTURE: "oauth-fixture",
          },
          outboundService: "test-network",
          workers: [
            {
              name: "demo-apps",
              modules: true,
              scriptPath: bundle("examples/apps/src/index.ts", "demo-apps"),
              compatibilityDate: "2026-08-15",
              durableObjects: { WORLDS: { className: "DemoWorld", useSQLite: true } },
            },
            {
              name: "fake-openai",
              modules: true,
              scriptPath: bundle("test/fakes/openai-server.ts", "fake-openai"),
              compatibilityDate: "2026-08-15",
              durableObjects: { STATE: { className: "FakeOpenAIState" } },
            },
            {
              name: "fake-ai",
              modules: true,
              scriptPath: bundle("test/fakes/ai-server.ts", "fake-ai"),
              compatibilityDate: "2026-08-15",
              durableObjects: { STATE: { className: "FakeAiState" } },
            },
            {
              name: "oauth-fixture",
              modules: true,
              scriptPath: bundle("test/fakes/oauth-server.ts", "oauth-fixture"),
              compatibilityDate: "2026-08-15",
              durableObjects: { STATE: { className: "OAuthFixtureState", useSQLite: true } },
            },
            {
              name: "test-network",
              modules: true,
              script: testNetwork,
              compatibilityDate: "2026-08-15",
              serviceBindings: { OPENAI: "fake-openai", APPS: "demo-apps", OAUTH: "oauth-fixture" },
            },
          ],
        },
      }),
    ],
    test: {
      name,
      include,
      setupFiles: ["test/worker/setup.ts"],
      globalSetup,
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
}
