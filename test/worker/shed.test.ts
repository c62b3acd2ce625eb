/**
 * Load shedding at the edge (issue #31): an object's load error answers 503 `overloaded` with
 * Retry-After in the API's error shape, and query starts past the isolate's bound are shed the same
 * way. Each with its control: any other error stays a 500; below the bound a request is admitted.
 */
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onApiError } from "../../src/worker/app.ts";
import type { AppEnv } from "../../src/worker/env.ts";
import worker from "../../src/worker/index.ts";
import { inFlightLimit } from "../../src/worker/shed.ts";
import { createTenant, expectError, issueKey } from "./helpers.ts";

/** An error as workerd throws it from a Durable Object call: a plain Error carrying its flags. */
const objectError = (message: string, flags: { overloaded?: boolean; retryable?: boolean }) =>
  Object.assign(new Error(message), flags);

/** POST a query through the real Worker, with a HUB binding whose every hub throws `error`. */
async function startQueryWhenHubThrows(error: Error) {
  const tenant = await createTenant();
  const frontend = await issueKey(tenant, "frontend");
  const throwingHub = {
    getByName: () => ({
      startQuery: () => Promise.reject(error),
    }),
  };
  const response = await worker.fetch(
    new Request("http://lattice.test/v1/sessions/ses_0123456789abcdef0123456789abcdef/queries", {
      method: "POST",
      headers: { Authorization: `Bearer ${frontend.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: "look up my landlord" }),
    }),
    { ...env, HUB: throwingHub as never },
  );
  return { status: response.status, body: await response.json(), response };
}

describe("an object's load error is shed, not a 500", () => {
  it("an overloaded hub answers 503 overloaded with Retry-After in the error shape", async () => {
    const res = await startQueryWhenHubThrows(
      objectError("Durable Object is overloaded. Too many requests queued.", { overloaded: true }),
    );
    expectError(res, 503, "overloaded");
    expect(Number(res.response.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("a retryable failure (an object reset mid-call) answers the same", async () => {
    const res = await startQueryWhenHubThrows(objectError("Network connection lost.", { retryable: true }));
    expectError(res, 503, "overloaded");
    expect(res.response.headers.get("Retry-After")).not.toBeNull();
  });

  it("control: the same error without the flags stays a 500 internal_error, without Retry-After", async () => {
    const res = await startQueryWhenHubThrows(objectError("Durable Object is overloaded.", {}));
    expectError(res, 500, "internal_error");
    expect(res.response.headers.get("Retry-After")).toBeNull();
  });
});

describe("the in-flight bound on query starts", () => {
  /** A route held open until released, behind a bound of `max`, answering errors as the API does. */
  function heldRoute(max: number) {
    const releases: Array<() => void> = [];
    const app = new Hono<AppEnv>();
    app.onError(onApiError);
    app.post("/q", inFlightLimit(max, "query starts"), async (c) => {
      await new Promise<void>((resolve) => releases.push(resolve));
      return c.json({ ok: true }, 202);
    });
    const send = () => app.request("/q", { method: "POST" });
    const waitHeld = async (n: number) => {
      while (releases.length < n) await new Promise((r) => setTimeout(r, 1));
    };
    return { send, waitHeld, release: () => releases.shift()?.() };
  }

  it("at the bound answers 503 overloaded with Retry-After at once", async () => {
    const route = heldRoute(2);
    const held = [route.send(), route.send()];
    await route.waitHeld(2);
    const shed = await route.send();
    expect(shed.status).toBe(503);
    expectError({ status: shed.status, body: await shed.json() }, 503, "overloaded");
    expect(Number(shed.headers.get("Retry-After"))).toBeGreaterThan(0);
    route.release();
    route.release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([202, 202]);
  });

  it("control: below the bound, and again once a start ends, a request is admitted", async () => {
    const route = heldRoute(2);
    const first = route.send();
    await route.waitHeld(1);
    const second = route.send(); // one below the bound: admitted, held like the first
    await route.waitHeld(2);
    route.release();
    expect((await first).status).toBe(202);
    const third = route.send(); // a place freed: admitted again
    await route.waitHeld(2);
    route.release();
    route.release();
    expect((await second).status).toBe(202);
    expect((await third).status).toBe(202);
  });
});
