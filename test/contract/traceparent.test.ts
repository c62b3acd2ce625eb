/** W3C Trace Context as the API reads it (src/objects/tracing.ts): a bad header is ignored, never an error. */
import { describe, expect, it } from "vitest";
import {
  appTraceparent,
  childContext,
  formatTraceparent,
  parseTraceparent,
} from "../../src/objects/tracing.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("traceparent", () => {
  it("reads a valid header, with its tracestate, and writes it back the same", () => {
    const parsed = parseTraceparent(`00-${TRACE}-${SPAN}-01`, "congo=t61rcWkgMzE");
    expect(parsed).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1, state: "congo=t61rcWkgMzE" });
    expect(formatTraceparent(parsed!)).toBe(`00-${TRACE}-${SPAN}-01`);
  });

  it.each([
    ["empty", ""],
    ["another version", `01-${TRACE}-${SPAN}-01`],
    ["upper case", `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ["a zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["a zero span id", `00-${TRACE}-${"0".repeat(16)}-01`],
    ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`],
    ["trailing fields", `00-${TRACE}-${SPAN}-01-extra`],
  ])("ignores %s", (_, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it("drops a tracestate with control characters, keeping the parent", () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`, "a=\u0001b")).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: 0,
    });
  });

  it("continues the parent's trace in a child, and starts a new one without", () => {
    const child = childContext(parseTraceparent(`00-${TRACE}-${SPAN}-01`));
    expect(child.traceId).toBe(TRACE);
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.spanId).not.toBe(SPAN);
    expect(childContext(null).traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("is sent to apps only where the deployment opted in; control: on, the app-call span's goes", () => {
    const span = { traceId: TRACE, spanId: SPAN, flags: 1 };
    expect(appTraceparent({}, span)).toBeUndefined();
    expect(appTraceparent({ LATTICE_TRACE_APPS: "yes" }, span)).toBeUndefined();
    expect(appTraceparent({ LATTICE_TRACE_APPS: "on" }, span)).toBe(`00-${TRACE}-${SPAN}-01`);
  });
});
