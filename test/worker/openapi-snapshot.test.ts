import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import snapshot from "../../clients/typescript/openapi.json";
import types from "../../clients/typescript/src/schema.d.ts?raw";
import { sha256Hex } from "../../src/objects/crypto.ts";

const REGENERATE = "the API's contract changed: run `npm run client:generate` and commit clients/typescript";

describe("the typed client's contract", () => {
  it("the committed OpenAPI snapshot is the document the Worker serves", async () => {
    const served = await (await SELF.fetch("http://lattice.test/openapi.json")).json();
    expect(served, REGENERATE).toEqual(snapshot);
  });

  it("the client's generated types come from that snapshot", async () => {
    const digest = await sha256Hex(JSON.stringify(snapshot));
    expect(types.slice(0, 300), REGENERATE).toContain(`sha256 of its JSON: ${digest}`);
  });
});
