import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_ERROR_CODES, ApiError, codeForStatus } from "../../src/worker/errors.ts";

// The committed snapshot is the document the Worker serves (test/worker/openapi-snapshot.test.ts).
const doc = JSON.parse(readFileSync("clients/typescript/openapi.json", "utf8"));
const schemas = doc.components.schemas;

describe("the API's error codes", () => {
  it("a code outside ApiErrorCode does not compile", () => {
    // @ts-expect-error — not a code of the union: tsc (npm run typecheck) fails if this compiles
    const made = new ApiError(400, "no_such_code", { message: "never" });
    expect(made.code).toBe("no_such_code"); // only tsc refuses it; at run time it is a plain string
  });

  it("the document lists every code of the union as the error schemas' code enum", () => {
    expect(schemas.ErrorCode.enum).toEqual([...API_ERROR_CODES]);
    expect(schemas.Error.properties.error.properties.code).toEqual({
      $ref: "#/components/schemas/ErrorCode",
    });
    expect(schemas.OpenAIError.properties.error.properties.code).toEqual({
      $ref: "#/components/schemas/ErrorCode",
    });
  });

  it("every status's default code is one the union lists", () => {
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 418, 429, 500, 502, 503, 504]) {
      expect(API_ERROR_CODES).toContain(codeForStatus(status));
    }
  });

  it("an error's body carries its code, message and details; its cause and headers stay off the body", () => {
    const cause = new Error("the provider's own words");
    const err = new ApiError(429, "rate_limited", {
      message: "slow down",
      details: { quota: "queries" },
      cause,
      headers: { "Retry-After": "5" },
    });
    expect(err.cause).toBe(cause);
    expect(err.headers).toEqual({ "Retry-After": "5" });
    expect(err.toBody()).toEqual({
      error: { code: "rate_limited", message: "slow down", details: { quota: "queries" } },
    });
    expect(new ApiError(404, "not_found", { message: "gone" }).toBody()).toEqual({
      error: { code: "not_found", message: "gone" },
    });
  });
});
