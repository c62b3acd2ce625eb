/** The tenant's trusted headers as the chat route reads them: a failed read is a 503 to retry, never a 500. */
import { describe, expect, it } from "vitest";
import { trustedHeaders } from "../../src/worker/chat/trusted-headers.ts";
import { ApiError } from "../../src/worker/errors.ts";

/** A tenant namespace whose object answers `servingState` with `answer` (a fake of the binding). */
function envWith(answer: () => Promise<unknown>): Env {
  const stub = { servingState: answer };
  return { TENANT: { getByName: () => stub } } as unknown as Env;
}

describe("trustedHeaders", () => {
  it("answers 503 with Retry-After when the tenant's policy cannot be read, and asks again next time", async () => {
    let calls = 0;
    const env = envWith(async () => {
      calls++;
      if (calls === 1) throw new Error("Network connection lost.");
      const policy = { trustedHeaders: { user: ["X-User"], chat: ["X-Chat"] } };
      return { stamp: "s1", value: { view: { policy } } };
    });
    const failed = await trustedHeaders(env, "t_headers_1").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ status: 503, code: "upstream_failed", headers: { "Retry-After": "1" } });
    // The failure was not cached: the next turn reads the policy again.
    await expect(trustedHeaders(env, "t_headers_1")).resolves.toEqual({ user: ["X-User"], chat: ["X-Chat"] });
    expect(calls).toBe(2);
  });
});
