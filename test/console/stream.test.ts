/**
 * The event stream's failure paths and the query view's read order, against stubbed routes (the
 * real API never sends a bad frame or a 429 on cue): a frame that is not JSON is skipped, a 429
 * waits its Retry-After, a 401 signs out, and an older read never renders over a newer one.
 */
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { signIn, stack, useBrowser, userToken } from "./kit.ts";

const frame = (seq: number, type: string) =>
  `id: ${seq}\ndata: ${JSON.stringify({ seq, queryId: "q_s", type, data: {}, at: "2026-12-01T00:00:00.000Z" })}\n\n`;
const view = (status: string) => ({
  id: "q_s",
  text: "stubbed",
  status,
  consents: [],
  display: [],
  error: null,
});

describe("the event stream and the query view's reads", () => {
  let token: string;
  let sid: string;
  const b = useBrowser(async () => {
    token = await userToken("alex");
    sid = ((await apiCall(stack().api, token, "POST", "/v1/sessions", { userId: "alex" })) as { id: string })
      .id;
  });

  it("skips a frame that is not JSON, waits a 429's Retry-After, and signs out on a 401", async () => {
    const seen: Array<{ at: number; last: string | undefined }> = [];
    const events = async (route: Route) => {
      seen.push({ at: Date.now(), last: route.request().headers()["last-event-id"] });
      if (seen.length === 1) {
        return route.fulfill({
          contentType: "text/event-stream",
          body: `id: 1\ndata: {not json\n\n${frame(2, "query_started")}`,
        });
      }
      if (seen.length === 2) return route.fulfill({ status: 429, headers: { "Retry-After": "2" }, json: {} });
      return route.fulfill({ status: 401, json: { error: { code: "unauthorized", message: "expired" } } });
    };
    await b.page.route("**/events", events);
    try {
      await signIn(b, `/console/sessions/${sid}`, token);
      await expect.poll(() => b.page.locator("#events li").allTextContents()).toEqual(["Query started"]);
      await expect.poll(() => seen.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
      // Resumed after the bad frame, not stuck re-reading it.
      expect(seen[1]!.last).toBe("2");
      expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(1900);
      await b.page.locator("#signin").waitFor({ state: "visible" });
      expect(await b.page.locator("#credential-error").textContent()).toMatch(/expired or was refused/);
      expect(seen.length).toBe(3);
    } finally {
      await b.page.unroute("**/events", events);
    }
  });

  it("never renders an older read over a newer one", async () => {
    let streams = 0;
    const events = (route: Route) => {
      streams++;
      // One event per connection: the second arrives after the first read has started.
      if (streams === 1)
        return route.fulfill({ contentType: "text/event-stream", body: frame(1, "query_started") });
      if (streams === 2)
        return route.fulfill({ contentType: "text/event-stream", body: frame(2, "planned") });
      return route.abort();
    };
    let reads = 0;
    const query = async (route: Route) => {
      reads++;
      if (reads === 1) {
        await new Promise((r) => setTimeout(r, 2500));
        return route.fulfill({ json: view("running") });
      }
      return route.fulfill({ json: view("completed") });
    };
    await b.page.route("**/events", events);
    await b.page.route("**/queries/q_s", query);
    try {
      await signIn(b, `/console/sessions/${sid}`, token);
      await expect.poll(() => reads, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 3000));
      expect(await b.page.locator("#query .status").textContent()).toBe("Status: Completed");
    } finally {
      await b.page.unroute("**/events", events);
      await b.page.unroute("**/queries/q_s", query);
    }
  });
});
