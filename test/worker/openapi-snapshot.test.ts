import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import snapshot from "../../clients/typescript/openapi.json";

// The typed client is generated from the committed snapshot (test/contract/client-types.test.ts
// checks that); here the snapshot must be the document the Worker serves.
describe("the typed client's contract", () => {
  it("the committed OpenAPI snapshot is the document the Worker serves", async () => {
    const served = await (await SELF.fetch("http://lattice.test/openapi.json")).json();
    expect(
      served,
      "the API's contract changed: run `npm run client:generate` and commit clients/typescript",
    ).toEqual(snapshot);
  });
});
