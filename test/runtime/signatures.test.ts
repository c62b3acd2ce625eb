/** The planner reads callables as typed signatures: every name a plan writes must be in them. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resultType, signatureOf } from "../../src/runtime/signatures.ts";

const str = { type: "string" };
const obj = (properties: Record<string, unknown>, required: string[] = [], extra: object = {}) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
  ...extra,
});
const tool = (request: unknown, response: unknown = obj({}), more: object = {}) =>
  signatureOf({
    tool: "x.do",
    description: "Does it.",
    request: request as Record<string, unknown>,
    response: response as Record<string, unknown>,
    ...more,
  });

describe("signatureOf", () => {
  it("renders arguments, requiredness, the result and irreversibility on one line", () => {
    const line = signatureOf({
      tool: "mail.send",
      description: "Send an email\n  from the user's mailbox.",
      request: obj(
        {
          to: { type: "string", format: "email" },
          subject: str,
          body: str,
          cc: { type: "array", items: str },
        },
        ["to", "subject", "body"],
      ),
      response: obj({ id: str, sent: { const: true } }, ["id", "sent"]),
      irreversible: true,
    });
    expect(line).toBe(
      "mail.send(to: string(email), subject: string, body: string, cc?: string[]) -> {id: string, sent: true} [irreversible] — Send an email from the user's mailbox.",
    );
  });

  it("keeps the constraints a literal must meet in arguments, and only values and formats in results", () => {
    const date = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" };
    const request = obj(
      {
        when: date,
        limit: { type: "integer", minimum: 1, maximum: 100 },
        amount: { type: "number", exclusiveMinimum: 0 },
        password: { type: "string", minLength: 8 },
        name: { type: "string", minLength: 1 },
        status: { enum: ["open", "closed"] },
        ids: { type: "array", items: str, minItems: 1 },
      },
      ["when"],
    );
    expect(tool(request, obj({ when: date, kind: { enum: ["a", "b"] } }))).toBe(
      'x.do(when: string(/^\\d{4}-\\d{2}-\\d{2}$/), limit?: int(1..100), amount?: number(>0), password?: string(len >=8), name?: string, status?: "open"|"closed", ids?: string[](>=1 items)) -> {when?: string, kind?: "a"|"b"} — Does it.',
    );
  });

  it("renders nested objects, lists of objects, unions, maps and nullables compactly", () => {
    const address = obj({ city: str, zip: str }, ["city"]);
    const request = obj(
      {
        to: address,
        lines: { type: "array", items: obj({ sku: str, qty: { type: "integer" } }, ["sku", "qty"]) },
        tags: { type: "object", additionalProperties: str },
        note: { type: ["string", "null"] },
        kind: { type: "array", items: { enum: ["a", "b"] } },
        either: { anyOf: [str, { type: "number" }] },
      },
      ["to"],
    );
    expect(tool(request)).toBe(
      'x.do(to: {city: string, zip?: string}, lines?: {sku: string, qty: int}[], tags?: {[key]: string}, note?: string|null, kind?: ("a"|"b")[], either?: string | number) -> {} — Does it.',
    );
  });

  it("shows property notes and defaults where the schema's author wrote them, and no other prose", () => {
    const request = obj({
      q: { type: "string", description: "What to look for */ in the text", title: "Query", examples: ["x"] },
      page: { type: "integer", title: "Page", default: 1 },
    });
    expect(tool(request)).toBe(
      "x.do(q?: string /* Query: What to look for * / in the text */, page?: int = 1 /* Page */) -> {} — Does it.",
    );
  });

  it("resolves $refs, folds allOf, and notes alternatives of required names", () => {
    const request = {
      type: "object",
      $defs: {
        node: obj({ name: str, children: { type: "array", items: { $ref: "#/$defs/node" } } }, ["name"]),
      },
      properties: { tree: { $ref: "#/$defs/node" }, channel: str, user: str },
      allOf: [obj({ text: str }, ["text"])],
      oneOf: [{ required: ["channel"] }, { required: ["user"] }],
    };
    expect(tool(request)).toBe(
      "x.do(tree?: {name: string, children?: node[]}, channel?: string, user?: string, text: string; needs one of: channel | user) -> {} — Does it.",
    );
  });

  it("stays bounded on hostile schemas: $ref fan-out, self-referencing allOf, deep nesting", () => {
    const wide = (next: string) => ({
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`p${i}`, { $ref: `#/$defs/${next}` }]),
      ),
    });
    const $defs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`d${i}`, i < 7 ? wide(`d${i + 1}`) : { type: "string" }]),
    );
    const fanOut = tool({ ...wide("d0"), $defs });
    expect(fanOut.length).toBeLessThan(50_000);
    const loop = {
      type: "object",
      $defs: { a: { allOf: [{ $ref: "#/$defs/a" }, obj({ x: str })] } },
      properties: { v: { $ref: "#/$defs/a" } },
    };
    expect(tool(loop)).toBe("x.do(v?: {x?: string}) -> {} — Does it.");
    let deep: Record<string, unknown> = str;
    for (let i = 0; i < 50; i++) deep = obj({ n: deep });
    expect(tool(deep)).toContain("…");
  });

  it("parenthesises unions before [] and lists a root $ref's arguments", () => {
    const either = { type: "array", items: { anyOf: [obj({ a: str }), obj({ b: str })] } };
    expect(tool(obj({ xs: either }))).toBe("x.do(xs?: ({a?: string} | {b?: string})[]) -> {} — Does it.");
    const root = { type: "object", $ref: "#/$defs/args", $defs: { args: obj({ q: str }, ["q"]) } };
    expect(tool(root)).toBe("x.do(q: string) -> {} — Does it.");
  });

  it("says so when a request takes anything", () => {
    expect(tool({ type: "object" }, { type: "object" })).toBe("x.do(...) -> object — Does it.");
    expect(tool(obj({}), obj({}))).toBe("x.do() -> {} — Does it.");
  });

  it("never throws, whatever JSON it is given (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (request, response) => {
        expect(typeof tool(request, response)).toBe("string");
        expect(typeof resultType(request)).toBe("string");
      }),
      { numRuns: 300 },
    );
  });

  it("names every property at every level, and marks exactly the optional ones (property)", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom(
          { type: "string" },
          { type: "integer", minimum: 0 },
          { enum: ["a", 2] },
          { const: true },
        ),
        fc
          .dictionary(name, tie("schema"), { maxKeys: 4 })
          .chain((props) =>
            fc
              .subarray(Object.keys(props))
              .map((required) => ({ type: "object", properties: props, required })),
          ),
        tie("schema").map((items) => ({ type: "array", items })),
      ),
    }));
    const names = (s: unknown): string[] => {
      if (typeof s !== "object" || s === null) return [];
      const r = s as { properties?: Record<string, unknown>; items?: unknown };
      return [...Object.entries(r.properties ?? {}).flatMap(([k, v]) => [k, ...names(v)]), ...names(r.items)];
    };
    /** The signature's arguments, split at the top level only. */
    const topLevel = (line: string): string[] => {
      const inner = line.slice(line.indexOf("(") + 1, line.indexOf(") -> "));
      const out: string[] = [];
      let depth = 0;
      let at = 0;
      for (let i = 0; i < inner.length; i++) {
        if ("{([".includes(inner[i]!)) depth++;
        else if ("})]".includes(inner[i]!)) depth--;
        else if (inner[i] === "," && depth === 0) {
          out.push(inner.slice(at, i).trim());
          at = i + 1;
        }
      }
      return [...out, inner.slice(at).trim()].filter(Boolean);
    };
    const top = fc
      .dictionary(name, schema, { minKeys: 1, maxKeys: 5 })
      .chain((props) => fc.subarray(Object.keys(props)).map((required) => obj(props, required)));
    fc.assert(
      fc.property(top, top, (request, response) => {
        const line = tool(request, response);
        for (const n of [...names(request), ...names(response)])
          expect(line).toMatch(new RegExp(`\\b${n}\\??: `));
        const args = topLevel(line).map((a) => a.slice(0, a.indexOf(": ")));
        expect(args).toEqual(
          Object.keys(request.properties).map((n) => (request.required.includes(n) ? n : `${n}?`)),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("stays small for hostile schemas: wide $ref fan-out over boolean properties, and allOf of many refs", () => {
    const wideDef = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x${i}`, true]));
    const fanOut = {
      type: "object",
      $defs: { D: { type: "object", properties: wideDef } },
      properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`a${i}`, { $ref: "#/$defs/D" }])),
    };
    const one = signatureOf({ tool: "t.fan", description: "d", request: fanOut, response: fanOut });
    expect(one.length).toBeLessThanOrEqual(4000);
    const props = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: "string" }]));
    const folded = {
      type: "object",
      $defs: { D: { type: "object", properties: props } },
      allOf: Array.from({ length: 1000 }, () => ({ $ref: "#/$defs/D" })),
    };
    const two = signatureOf({ tool: "t.fold", description: "d", request: folded, response: folded });
    expect(two.length).toBeLessThanOrEqual(4000);
    expect(two).toContain("p0?: string");
  });

  it("cuts a long signature without splitting a surrogate pair", () => {
    // Odd offsets too: whichever unit the limit falls on, no lone high surrogate is left before the ellipsis.
    for (const pad of ["", "a"]) {
      const line = tool(obj({}), obj({}), { description: `${pad}${"😀".repeat(3000)}` });
      expect(line.endsWith("…")).toBe(true);
      expect(line.length).toBeLessThanOrEqual(4000);
      expect(/[\uD800-\uDBFF]…$/.test(line)).toBe(false);
    }
  });
});
