/**
 * A call that got no answer at all (the app's server closed a kept-alive connection as it was
 * reused) goes once more when it is reversible, with the same idempotency key; an irreversible one
 * never does (src/objects/spoke/transports/http.ts). fetch is a test double here.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Functionality } from "../../src/apps/manifest.ts";
import type { ServingApp, SpokeCall } from "../../src/contracts.ts";
import { httpTransport } from "../../src/objects/spoke/transports/http.ts";
import type { SpokeContext } from "../../src/objects/spoke/transports/transport.ts";

const app = {
  manifest: { endpoint: "https://app.example/api" },
  secrets: ["s3cret"],
} as unknown as ServingApp;
const call = {
  request: { name: "landlord" },
  idempotencyKey: "idem-1",
  callId: "call-1",
  limits: {},
} as unknown as SpokeCall;

function fetchFailingOnce() {
  const seen: Array<string | null> = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (_url, init) => {
    seen.push(new Headers(init?.headers).get("X-Lattice-Idempotency-Key"));
    if (seen.length === 1) throw new Error("Network connection lost.");
    return new Response(JSON.stringify({ found: true }), { status: 200 });
  });
  return { seen, spy };
}

const run = (irreversible: boolean) =>
  httpTransport({} as SpokeContext, call, app, { name: "lookup", irreversible } as Functionality).call();

afterEach(() => vi.restoreAllMocks());

describe("an app call that got no answer", () => {
  it("is sent once more when reversible, with the same idempotency key", async () => {
    const { seen } = fetchFailingOnce();
    expect(await run(false)).toEqual({ ok: true, value: { found: true } });
    expect(seen).toEqual(["idem-1", "idem-1"]);
  });

  it("control: an irreversible one is never sent again", async () => {
    const { seen } = fetchFailingOnce();
    expect(await run(true)).toMatchObject({ ok: false, code: "app_error" });
    expect(seen).toEqual(["idem-1"]);
  });

  it("is not sent again after an answer, even a failing one", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("no", { status: 500 }));
    expect(await run(false)).toMatchObject({ ok: false, code: "app_error" });
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
