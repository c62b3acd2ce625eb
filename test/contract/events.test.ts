import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVENT_DATA, HUB_EVENT_TYPES } from "../../src/runtime/index.ts";
import { EventSchema } from "../../src/worker/schemas/events.ts";

// The runtime's table of events is what the hub may write; the edge's schema and the committed
// OpenAPI document (equal to the served one: test/worker/openapi-snapshot.test.ts) must list it
// exactly: an event written but undocumented, or documented but never written, fails here.
describe("the hub's events", () => {
  const runtime = [...HUB_EVENT_TYPES].sort();

  it("are the edge schema's types, each with the runtime's data schema", () => {
    const options = EventSchema.options.map((o) => o.shape);
    expect(options.map((o) => o.type.value).sort()).toEqual(runtime);
    for (const shape of options) expect(shape.data).toBe(EVENT_DATA[shape.type.value]);
    expect(runtime.length).toBeGreaterThan(10);
  });

  it("are the OpenAPI document's Event types", () => {
    const doc = JSON.parse(readFileSync("clients/typescript/openapi.json", "utf8"));
    const oneOf = doc.components.schemas.Event.oneOf as Array<{ properties: { type: { enum: string[] } } }>;
    expect(oneOf.flatMap((o) => o.properties.type.enum).sort()).toEqual(runtime);
  });

  it("parse as the edge documents them, and refuse a type outside the table", () => {
    const event = { seq: 1, queryId: "q_1", at: "2026-01-01T00:00:00Z" };
    expect(EventSchema.safeParse({ ...event, type: "planning", data: {} }).success).toBe(true);
    expect(EventSchema.safeParse({ ...event, type: "query_paused", data: {} }).success).toBe(false);
  });
});
