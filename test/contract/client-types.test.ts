import { readFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";

// The served document equals the committed snapshot (test/worker/openapi-snapshot.test.ts); here the
// committed types must be exactly what openapi-typescript makes of that snapshot: no hand edits.
describe("the typed client's generated types", () => {
  it("are openapi-typescript's output for the committed snapshot", async () => {
    const snapshot = JSON.parse(readFileSync("clients/typescript/openapi.json", "utf8"));
    const committed = readFileSync("clients/typescript/src/schema.d.ts", "utf8");
    const generated = astToString(await openapiTS(snapshot));
    expect(committed.slice(committed.indexOf("\n\n") + 2), "run `npm run client:generate`").toBe(generated);
  });
});
