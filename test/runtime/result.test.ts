import { describe, expect, it } from "vitest";
import { type Failure, failure, type Result } from "../../src/result.ts";

describe("failure: the one failure shape", () => {
  it("carries code and message, and details only when given", () => {
    expect(failure("not_found", "no such app")).toStrictEqual({
      ok: false,
      code: "not_found",
      message: "no such app",
    });
    expect(failure("invalid_picks", "refused", [{ choice: "mail" }])).toStrictEqual({
      ok: false,
      code: "invalid_picks",
      message: "refused",
      details: [{ choice: "mail" }],
    });
  });

  it("types details where a reader needs them (tsc)", () => {
    const quota: Failure<"quota_exceeded", { limit: number }> = failure("quota_exceeded", "used up", {
      limit: 3,
    });
    expect(quota.details.limit).toBe(3);
    // @ts-expect-error — a failure whose reader needs details cannot be made without them
    const bare: Failure<"quota_exceeded", { limit: number }> = failure("quota_exceeded", "used up");
    expect(bare.details).toBeUndefined();
    const open: Result<{ n: number }, "x"> = failure("x", "anything may ride along", { any: true });
    expect(open.ok).toBe(false);
  });
});
