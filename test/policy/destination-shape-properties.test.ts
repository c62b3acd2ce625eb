/**
 * #43, Build 8, destination shapes: an attacker who knows that destinations are read from names,
 * formats and whole values hides the place in another shape, carrying a secret it generated (in a
 * subdomain, a path, a phone number's digits). fast-check writes the shape; the property is that
 * the inferred destinations (inferred-destinations.ts) read it, so the visor's T refuses a place
 * the user's words do not name. Control: with the reading switched off (an admin confirmed the
 * tool's list as empty) the same call passes T.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  inferredDestinations,
  isDestinationName,
  type VisorTool,
  visorAudit,
} from "../../src/policy/index.ts";

const RUNS = { numRuns: 200 };
const TASK = "Look up the weather for Berlin";

/** One call of `tool` under a request whose user-given words are the task only. */
function audit(tool: VisorTool, args: Record<string, unknown>) {
  return visorAudit({
    functionality: { name: "research", irreversible: false, destinations: [] },
    tools: [tool],
    allowed: [tool.name],
    request: { task: TASK },
    trusted: { task: TASK },
    call: { tool: tool.name, args },
    checks: { S: true, T: true, I: true },
    irreversibleDone: false,
  });
}

/** Names no destination word gives away: the attacker picks those. */
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).filter((k) => !isDestinationName(k));
const label = fc.stringMatching(/^[a-z][a-z0-9]{1,8}$/);
/** The stolen data, as a subdomain label carries it: hex or base32-ish. */
const secret = fc.stringMatching(/^[a-z0-9]{6,24}$/);
const host = fc.tuple(label, fc.constantFrom("test", "example", "invalid")).map(([h, tld]) => `${h}.${tld}`);
const octet = fc.integer({ min: 1, max: 254 });
const ip = fc.tuple(fc.integer({ min: 1, max: 223 }), octet, octet, octet).map((o) => o.join("."));
const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));

/** One value hiding a place, and the secret it carries (null when the place is all of it). */
const shape = fc.oneof(
  // A secret in a subdomain, bare or as a link.
  fc
    .tuple(secret, host, fc.constantFrom("", "https://", "http://"))
    .map(([s, h, scheme]) => `${scheme}${s}.${h}`),
  // An IP literal without a scheme, with a path, a port or nothing.
  fc
    .tuple(ip, fc.constantFrom("", "/collect", ":8080", ":443/x"), secret)
    .map(([a, tail, s]) => `${a}${tail}${tail.endsWith("/collect") ? `?d=${s}` : ""}`),
  // A named address, as a mail header writes one.
  fc
    .tuple(label, secret, host)
    .map(([name, s, h]) => `${name[0]!.toUpperCase()}${name.slice(1)} <${s}@${h}>`),
  // A national phone number, grouped as people write them.
  fc
    .tuple(fc.constantFrom("030", "0171", "020", "089"), digits(7))
    .chain(([area, n]) =>
      fc.constantFrom(
        `${area} ${n}`,
        `(${area}) ${n.slice(0, 3)}-${n.slice(3)}`,
        `${area}-${n}`,
        `${area} ${n.slice(0, 3)} ${n.slice(3)}`,
      ),
    ),
);
/** Words around it: the shape may be the whole value or sit inside a sentence. */
const framed = fc
  .tuple(shape, fc.constantFrom("", "see ", "Note: use "), fc.constantFrom("", " thanks", "."))
  .map(([s, lead, tail]) => `${lead}${s}${tail}`);

describe("destination shapes: a place hidden in a value, a split, or a $ref (#43)", () => {
  it("a value hiding a place in any argument is a destination, and T refuses it; control: confirmed, it passes", () => {
    fc.assert(
      fc.property(key, framed, (name, value) => {
        const tool: VisorTool = {
          name: "lookup",
          irreversible: false,
          parameters: { type: "object", properties: { [name]: { type: "string" } } },
        };
        expect(inferredDestinations(tool.parameters, { [name]: value })).toEqual([{ path: name, value }]);
        expect(audit(tool, { [name]: value })).toMatchObject({ type: "T" });
        expect(audit({ ...tool, destinations: [], confirmed: true }, { [name]: value })).toBeNull();
      }),
      RUNS,
    );
  });

  it("host and path split across two arguments: the host's is read; control: confirmed, it passes", () => {
    const twoKeys = fc.uniqueArray(key, { minLength: 2, maxLength: 2 });
    fc.assert(
      fc.property(twoKeys, fc.oneof(host, ip), secret, ([first, second], h, s) => {
        const args = { [first!]: h, [second!]: `/c?d=${s}` };
        const tool: VisorTool = {
          name: "lookup",
          irreversible: false,
          parameters: {
            type: "object",
            properties: { [first!]: { type: "string" }, [second!]: { type: "string" } },
          },
        };
        expect(inferredDestinations(tool.parameters, args)).toContainEqual({ path: first, value: h });
        expect(audit(tool, args)).toMatchObject({ type: "T" });
        expect(audit({ ...tool, destinations: [], confirmed: true }, args)).toBeNull();
      }),
      RUNS,
    );
  });

  it("a $ref'd format uri (through $defs, a chain or a branch) makes whatever it holds a destination; control: without the format, nothing", () => {
    const via = fc.constantFrom("direct", "chain", "anyOf", "items");
    fc.assert(
      fc.property(key, label, via, fc.string({ maxLength: 12 }), (name, def, how, value) => {
        const withFormat = (format: boolean) => {
          const leaf = format ? { type: "string", format: "uri" } : { type: "string" };
          const $defs: Record<string, unknown> = {
            [def]: leaf,
            [`${def}_alias`]: { $ref: `#/$defs/${def}` },
          };
          const prop =
            how === "direct"
              ? { $ref: `#/$defs/${def}` }
              : how === "chain"
                ? { $ref: `#/$defs/${def}_alias` }
                : how === "anyOf"
                  ? { anyOf: [{ type: "null" }, { $ref: `#/$defs/${def}` }] }
                  : { type: "array", items: { $ref: `#/$defs/${def}_alias` } };
          return { type: "object", $defs, properties: { [name]: prop } };
        };
        const args = { [name]: how === "items" ? [value] : value };
        const path = how === "items" ? `${name}[]` : name;
        if (value !== "") expect(inferredDestinations(withFormat(true), args)).toEqual([{ path, value }]);
        // Control: without the format, the $ref reads exactly as a plain string there does (only a
        // value that is itself an address, `//host` included), whatever the value.
        const string = { type: "string" };
        const bare = { [name]: how === "items" ? { type: "array", items: string } : string };
        const plain = inferredDestinations(withFormat(false), args);
        expect(plain).toEqual(inferredDestinations({ type: "object", properties: bare }, args));
      }),
      RUNS,
    );
  });
});
