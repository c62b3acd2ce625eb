import { describe, expect, it } from "vitest";
import { argumentRequirement, isSchemaDestination } from "../../src/policy/endpoints.ts";
import { policyLattices } from "../../src/policy/index.ts";
import { entry, policy } from "./fixtures.ts";

/** A reversible fetch: its `url` is a place content would send the user's reader to (#43, Build 5). */
const fetchEntry = entry({
  irreversible: false,
  requestSchema: {
    type: "object",
    properties: {
      url: { type: "string", format: "uri" },
      mirror: { $ref: "#/$defs/link" },
      webhook_url: { type: "string" },
      note: { type: "string" },
    },
    $defs: { link: { type: "string", format: "uri" } },
  },
});
const floor = (input: Parameters<typeof policy>[0], arg: string) => {
  const p = policy(input);
  return argumentRequirement(p, policyLattices(p), "web.fetch", fetchEntry, arg).minIntegrity;
};

describe("an argument the catalog's schema makes a destination", () => {
  it("is read by format or by name; other arguments are not", () => {
    expect(isSchemaDestination(fetchEntry, "url")).toBe(true);
    expect(isSchemaDestination(fetchEntry, "webhook_url")).toBe(true);
    expect(isSchemaDestination(fetchEntry, "mirror")).toBe(true);
    expect(isSchemaDestination(fetchEntry, "note")).toBe(false);
    expect(isSchemaDestination(undefined, "url")).toBe(false);
  });

  it("gets the top floor on a reversible tool, where other arguments get the bottom", () => {
    expect(floor({}, "url")).toBe("user");
    expect(floor({}, "webhook_url")).toBe("user");
    // Control: the same tool's non-destination argument keeps the reversible default.
    expect(floor({}, "note")).toBe("untrusted");
  });

  it("keeps it under a tool-wide relaxation; only its own minIntegrity lowers it", () => {
    const toolWide = { tools: { "web.fetch": { minInputIntegrity: "untrusted" } } };
    expect(floor(toolWide, "url")).toBe("user");
    expect(floor(toolWide, "note")).toBe("untrusted");
    const own = { tools: { "web.fetch": { args: { url: { minIntegrity: "untrusted" } } } } };
    expect(floor(own, "url")).toBe("untrusted");
  });
});
