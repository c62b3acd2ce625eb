import { env } from "cloudflare:workers";
import { expect, it } from "vitest";

it("reaches the demo apps worker", async () => {
  const res = await (env as unknown as { DEMO_APPS: Fetcher }).DEMO_APPS.fetch("http://apps/healthz");
  expect(res.status).toBe(200);
  const viaFetch = await fetch("http://127.0.0.1:9999/healthz");
  expect(viaFetch.status).toBe(200);
});
