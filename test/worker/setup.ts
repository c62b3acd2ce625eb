import { exports } from "cloudflare:workers";
import { beforeAll } from "vitest";

// The first request of a test file loads the Worker's modules cold; pay that here, not in a test's timeout.
beforeAll(async () => {
  await exports.default.fetch("http://lattice.test/healthz");
}, 60_000);
