/**
 * The payload sanitiser (`sanitise: "no-foreign-references"`) against an attacker who knows it
 * (#43): fast-check writes the attacker's content per class, and each property holds with its
 * control — the old, host-level or literal reading would have let the same content through.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Label,
  type PoolSource,
  policyLattices,
  references,
  TrustedPool,
  vouch,
} from "../../src/policy/index.ts";
import { policy } from "./fixtures.ts";

const P = policy({
  tools: { "mail.send": { args: { body: { role: "payload", sanitise: "no-foreign-references" } } } },
});
const L = policyLattices(P);
const USER: Label = { confidentiality: "internal", integrity: "user" };

/** Whether `body` passes the sanitiser when the user's own data holds `trusted`. */
function passes(body: string, trusted: readonly string[]): boolean {
  const sources: PoolSource[] = [{ name: "mine", value: [...trusted], label: USER }];
  return (
    vouch({
      l: L,
      policy: P,
      tool: "mail.send",
      argument: "body",
      destination: false,
      value: body,
      required: { maxConfidentiality: "confidential", minIntegrity: "user" },
      pool: () => new TrustedPool(L, "Summarise my notes", sources),
    }) !== null
  );
}

const kinds = (text: string, kind: string) =>
  [...references(text)].filter((r) => r.startsWith(`${kind}:`)).sort();
const subset = (a: readonly string[], b: readonly string[]) => a.every((x) => b.includes(x));

const label = fc.stringMatching(/^[a-z][a-z0-9]{2,9}$/);
const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,9}$/);
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/"));
const multiTenant = fc.constantFrom(
  "github.com",
  "docs.google.com",
  "drive.google.com",
  "bit.ly",
  "gitlab.com",
);
const prose = fc.constantFrom("See", "Details at", "The fix:", "Please review", "");

describe("a foreign path on a trusted host", () => {
  it("is refused, with or without a scheme; control: compared by host it was trusted", () => {
    const written = fc.constantFrom(
      (h: string, p: string) => `https://${h}/${p}`,
      (h: string, p: string) => `${h}/${p}`,
      (h: string, p: string) => `[here](${h}/${p})`,
      (h: string, p: string) => `<https://${h}/${p}?ref=1>`,
    );
    fc.assert(
      fc.property(multiTenant, path, path, written, prose, (host, mine, theirs, write, lead) => {
        fc.pre(mine !== theirs);
        const trusted = `https://${host}/${mine}`;
        const attack = `${lead} ${write(host, theirs)}`;
        expect(passes(attack, [trusted])).toBe(false);
        expect(subset(kinds(attack, "host"), kinds(trusted, "host"))).toBe(true);
        // And the trusted link itself, fragment aside, passes.
        expect(passes(`${lead} ${trusted}#section`, [trusted])).toBe(true);
      }),
    );
  });
});

describe("userinfo and backslash tricks in the authority", () => {
  it("are refused even when the trusted data writes the same text; control: readers disagree on the host", () => {
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join("."));
    const trick = fc.oneof(
      fc.tuple(ipv4, multiTenant, path).map(([ip, h, p]) => ({ text: `https://${ip}\\@${h}/${p}`, host: h })),
      fc
        .tuple(label, multiTenant, path)
        .map(([e, h, p]) => ({ text: `https://${h}@${e}.test/${p}`, host: h })),
      fc
        .tuple(label, multiTenant, path)
        .map(([e, h, p]) => ({ text: `https://${h}\\@${e}.test/${p}`, host: h })),
    );
    const naive = /[a-z]+:\/\/(?:[^\s/?#@]*@)?([^\s/?#:]+)/i;
    fc.assert(
      fc.property(trick, prose, ({ text, host }, lead) => {
        expect(passes(`${lead} ${text}`, [text, `https://${host}/`])).toBe(false);
        // Control, why each is a trick: a regex and the browser's parser disagree on the host, or a
        // person reading left to right sees the trusted host first.
        const read = text.match(naive)?.[1];
        expect(read !== new URL(text).hostname || text.startsWith(`https://${host}`)).toBe(true);
      }),
    );
  });
});

describe("spaced, broken and worded separators", () => {
  const dot = fc.constantFrom(
    " . ",
    "\n.\n",
    " .",
    "\n.",
    ".\n",
    "[.]",
    "(dot)",
    " dot ",
    "[dot]",
    "\u00b7",
    "\u3002",
    "\\.",
  );
  const at = fc.constantFrom(" @ ", "@\n", " @", "(at)", "[at]", " at ", "[@]", "\uff20");

  it("a host written with them is read and refused; control: it is not in the text as written", () => {
    fc.assert(
      fc.property(label, fc.constantFrom("test", "com", "net", "io"), dot, prose, (name, tld, sep, lead) => {
        const text = `${lead} go to ${name}${sep}${tld} now`;
        expect(text.includes(`${name}.${tld}`)).toBe(false);
        expect(passes(text, [])).toBe(false);
      }),
    );
  });

  it("an address written with them is read and refused; control: the literal address is not there", () => {
    fc.assert(
      fc.property(label, label, dot, at, (user, domain, sep, a) => {
        const text = `write to ${user}${a}${domain}${sep}test today`;
        expect(text.includes(`${user}@${domain}.test`)).toBe(false);
        expect(passes(text, [`someone@${domain}.test`])).toBe(false);
      }),
    );
  });
});

describe("phone numbers, handles, wallets and IP literals", () => {
  const group = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
  const phone = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 99 }), group(3), group(4)).map(([cc, a, b]) => `+${cc} ${a} ${b}`),
    fc.tuple(group(3), group(3), group(4)).map(([a, b, c]) => `(${a}) ${b}-${c}`),
    fc.tuple(group(3), group(7)).map(([a, b]) => `0${a.slice(1)} ${b}`),
  );
  const handle = fc.stringMatching(/^[a-z][a-z0-9_]{2,12}$/).map((h) => `@${h}`);
  const wallet = fc.stringMatching(/^[0-9a-f]{40}$/).map((h) => `0x${h}`);
  const ip = fc
    .tuple(
      fc.integer({ min: 1, max: 223 }),
      fc.nat(255),
      fc.nat(255),
      fc.integer({ min: 1, max: 254 }),
      fc.boolean(),
    )
    .map(([a, b, c, d, withPath]) => `${a}.${b}.${c}.${d}${withPath ? "/collect" : ""}`);
  const place = fc.oneof(phone, handle, wallet, ip);

  it("one no trusted value holds is refused; control: the same one held by the user's data passes", () => {
    fc.assert(
      fc.property(place, prose, (p, lead) => {
        const text = `${lead} contact ${p} for the rest`;
        expect(passes(text, [])).toBe(false);
        expect(passes(text, [p])).toBe(true);
      }),
    );
  });
});

describe("an IBAN is one only when its check digits hold", () => {
  const LENGTHS = { DE: 22, GB: 22, FR: 27, NL: 18, ES: 24 } as const;
  const mod97 = (s: string) =>
    [...s.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))].reduce(
      (r, d) => (r * 10 + Number(d)) % 97,
      0,
    );
  const iban = fc.constantFrom(...(Object.keys(LENGTHS) as Array<keyof typeof LENGTHS>)).chain((country) =>
    fc.stringMatching(new RegExp(`^[0-9]{${LENGTHS[country] - 4}}$`)).map((bban) => {
      const check = 98 - mod97(`${bban}${country}00`);
      const valid = `${country}${String(check).padStart(2, "0")}${bban}`;
      const wrong = ((check - 2 + 1) % 97) + 2;
      const invalid = `${country}${String(wrong).padStart(2, "0")}${bban}`;
      return { valid, invalid };
    }),
  );
  /** How a person might print it: compact, in fours, spaced out, or broken over lines. */
  const printed = fc.constantFrom(
    (s: string) => s,
    (s: string) => s.replace(/(.{4})/g, "$1 ").trim(),
    (s: string) => [...s].join(" "),
    (s: string) => s.replace(/(.{4})/g, "$1\n").trim(),
  );
  const OLD_IBAN = /[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{10,30}|(?:[ .-][A-Z0-9]{4}){2,7}(?:[ .-][A-Z0-9]{1,4})?)/;

  it("a valid foreign IBAN is refused however printed; the trusted one passes", () => {
    fc.assert(
      fc.property(iban, printed, ({ valid }, print) => {
        const text = `Please pay ${print(valid)} by Friday.`;
        expect(passes(text, [])).toBe(false);
        expect(passes(text, [valid])).toBe(true);
      }),
    );
  });

  it("an account number with wrong check digits is no IBAN: it passes; control: the old shape read it", () => {
    fc.assert(
      fc.property(iban, ({ invalid }) => {
        const text = `Refund to account ${invalid} by June.`;
        expect(OLD_IBAN.test(text)).toBe(true);
        expect(kinds(text, "iban")).toEqual([]);
        expect(passes(text, [])).toBe(true);
      }),
    );
  });
});
