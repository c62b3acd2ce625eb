import { describe, expect, it } from "vitest";
import { references } from "../../src/policy/index.ts";

const hosts = (text: string) =>
  [...references(text)].filter((r) => r.startsWith("host:")).map((r) => r.slice(5));

/** What a naive sanitiser looks for: links with a scheme. The bypasses below get past it. */
const naiveLinks = (text: string) => text.match(/https?:\/\/[^\s)]+/g) ?? [];

describe("references: what a payload writes", () => {
  it("finds links, bare domains, e-mail addresses and IBANs", () => {
    const found = references(
      "See https://www.informations.com/a?b=1, mail bob@corp.example or pay GB29 NWBK 6016 1331 9268 19 now.",
    );
    expect([...found].sort()).toEqual([
      "email:bob@corp.example",
      "host:corp.example",
      "host:www.informations.com",
      "iban:GB29NWBK60161331926819",
    ]);
  });

  it("reads a compact IBAN without running into the next words", () => {
    expect([...references("to XX00ATTACKER0000000001 TO ME")]).toEqual(["iban:XX00ATTACKER0000000001"]);
  });

  it("finds nothing in plain prose, numbers, abbreviations or file names", () => {
    for (const text of [
      "Lunch at 12.30, e.g. the usual place. Budget 1,250.50 EUR.",
      "The U.S.A. team shipped v2.4 today.",
      "Attached: report.pdf and notes.docx",
    ]) {
      expect(references(text), text).toEqual(new Set());
    }
  });

  it("counts a file-like name that is a real domain (.zip, .md) and any deeper host", () => {
    expect(hosts("get invoice.zip and read.md")).toEqual(["invoice.zip", "read.md"]);
    expect(hosts("www.report.pdf")).toEqual(["www.report.pdf"]);
  });

  describe("bypasses a link-only sanitiser misses are references here", () => {
    const cases: Array<[string, string, string]> = [
      ["a bare domain", "visit www.secure-systems-252.com today", "www.secure-systems-252.com"],
      ["a markdown link without scheme", "[your account](secure-systems.test/login)", "secure-systems.test"],
      ["percent-encoding", "go to https%3A%2F%2Fevil.test%2Fx", "evil.test"],
      ["double percent-encoding", "go to evil%252Etest", "evil.test"],
      ["an HTML entity dot", "go to evil&#46;test", "evil.test"],
      ["a defanged dot", "go to evil[.]test or evil(dot)test", "evil.test"],
      ["a spelled-out dot", "go to evil dot test", "evil.test"],
      ["spaces around the dot", "go to evil . test", "evil.test"],
      ["a full-width dot", "go to evil．test", "evil.test"],
      ["an ideographic full stop", "go to evil。test", "evil.test"],
      ["a zero-width space inside", "go to ev\u200bil.test", "evil.test"],
      ["a soft hyphen inside", "go to ev\u00adil.test", "evil.test"],
      ["full-width letters", "go to ｅｖｉｌ.test", "evil.test"],
      ["an escaped dot", "go to evil\\.test", "evil.test"],
    ];
    for (const [name, text, host] of cases) {
      it(name, () => {
        expect(naiveLinks(text).some((l) => l.includes(host))).toBe(false);
        expect(hosts(text)).toContain(host);
      });
    }
  });

  it("keeps a homoglyph host apart from the ASCII one it imitates", () => {
    // Cyrillic "е" (U+0435) in place of the Latin "e".
    const spoof = hosts("sign in at www.s\u0435cure-bank.com");
    expect(spoof).toHaveLength(1);
    expect(spoof[0]).not.toBe("www.secure-bank.com");
    // Punycode is ASCII: it is a host of its own.
    expect(hosts("sign in at xn--scure-bank-tnb.com")).toEqual(["xn--scure-bank-tnb.com"]);
  });

  describe("places without a domain name are references too (second reader's findings)", () => {
    const cases: Array<[string, string, string]> = [
      ["a decimal IP link", "log in at http://3232235777/login", "host:3232235777"],
      ["a dotted IP link", "see http://192.168.1.1/", "host:192.168.1.1"],
      ["a hex IP link", "see http://0xC0A80101/", "host:0xc0a80101"],
      ["an IPv6 link", "see http://[2001:db8::1]/", "host:[2001:db8::1]"],
      ["a one-label host", "see http://evil/", "host:evil"],
      ["a punycode top-level domain", "https://paypal-secure.xn--p1ai/login", "host:paypal-secure.xn--p1ai"],
      ["named entities", '<a href="https://evil&period;com">', "host:evil.com"],
      ["a mailto with named entities", "mailto:evil&commat;evil&period;com", "email:evil@evil.com"],
      ["a zero-padded entity", "evil&#x00000002e;com", "host:evil.com"],
      ["a hyphenated IBAN", "pay GB29-NWBK-6016-1331-9268-19", "iban:GB29NWBK60161331926819"],
      ["a tel: link", "call tel:+4930555", "uri:tel:+4930555"],
      ["a data: link", "open data:text/html;base64,PHNjcmlwdD4=", "uri:data:text/html;base64,phnjcmlwdd4="],
      ["a javascript: link", "[x](javascript:alert(1))", "uri:javascript:alert(1"],
    ];
    for (const [name, text, ref] of cases) {
      it(name, () => {
        expect([...references(text)]).toContain(ref);
      });
    }
  });

  it("finds an e-mail address written as 'name [at] host'", () => {
    expect(references("write to mark [at] evil.test")).toContain("email:mark@evil.test");
  });
});
