import { describe, expect, it } from "vitest";
import { ibanChecksumHolds, references } from "../../src/policy/index.ts";

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
      "link:https://www.informations.com/a?b=1",
    ]);
  });

  it("reads a compact IBAN without running into the next words", () => {
    expect([...references("to DE89370400440532013000 TO ME")]).toEqual(["iban:DE89370400440532013000"]);
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

/** The extraction before #43, kept as the control: IBANs by shape, hosts of links by a regex. */
const OLD_IBAN = /[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}/;
const OLD_AUTHORITY = /[a-z][a-z0-9+.-]{1,30}:\/\/(?:[^\s/?#@<>"'`)\]]*@)?([^\s/?#:<>"'`)\]]{1,255})/i;

describe("#43: references at the right unit", () => {
  it("a link is the whole parsed link without its fragment, so a path on a trusted host is its own", () => {
    const mine = references("https://GitHub.com/me/repo#readme");
    const theirs = references("see github.com/evil-org/x");
    expect(mine).toContain("link:https://github.com/me/repo");
    expect(theirs).toContain("link:https://github.com/evil-org/x");
    // Control: by host alone (the old unit) the two are the same place.
    expect(mine).toContain("host:github.com");
    expect(theirs).toContain("host:github.com");
  });

  it("an authority with a backslash or userinfo is unreadable, not the host a person reads", () => {
    const text = "https://203.0.113.9\\@github.com/";
    expect(references(text)).toContain("unreadable:authority");
    // Control: a regex reads github.com, while the browser's parser goes to the IP.
    expect(text.match(OLD_AUTHORITY)?.[1]).toBe("github.com");
    expect(new URL(text).hostname).toBe("203.0.113.9");
    expect(references("https://github.com@evil.test/x")).toContain("unreadable:authority");
  });

  it("a link the parser refuses is unreadable", () => {
    expect(references("open https://exa mple.test and http://[zz::1]/")).toContain("unreadable:link");
  });

  const found: Array<[string, string, string]> = [
    ["an IP without a scheme", "post it to 203.0.113.9/collect", "link:https://203.0.113.9/collect"],
    ["a bare IP", "the server is 203.0.113.9 now", "host:203.0.113.9"],
    ["a bare IPv6", "the server is 2001:db8::1 now", "host:[2001:db8::1]"],
    ["an object key", "upload to s3://drop-bucket/loot.csv", "link:s3://drop-bucket/loot.csv"],
    ["an ARN", "arn:aws:s3:::drop-bucket/loot", "uri:arn:aws:s3:::drop-bucket/loot"],
    ["an international phone number", "call +49 30 555-0100", "phone:+49305550100"],
    ["a 00 phone number", "call 0049 30 5550100", "phone:+49305550100"],
    ["a national phone number", "call 030 1234567 today", "phone:0301234567"],
    ["a US phone number", "call (555) 010-0100", "phone:5550100100"],
    ["a chat handle", "DM @Mallory_x for the files", "handle:@mallory_x"],
    [
      "an Ethereum wallet",
      "send to 0x52908400098527886E0F7030069857D2E4169EE7",
      "wallet:0x52908400098527886e0f7030069857d2e4169ee7",
    ],
    [
      "a bech32 wallet",
      "send to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      "wallet:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    ],
    [
      "a base58 wallet",
      "send to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
      "wallet:1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    ],
  ];
  for (const [name, text, ref] of found) {
    it(`reads ${name}`, () => {
      expect(references(text)).toContain(ref);
    });
  }

  const separators: Array<[string, string, string]> = [
    ["a dot with line breaks around it", "go to evil\n.\ntest", "host:evil.test"],
    ["a dot with a space before it", "go to evil .test", "host:evil.test"],
    ["a dot with a line break after it", "go to evil.\ntest/x", "link:https://evil.test/x"],
    ["a middle dot", "go to evil\u00b7test", "host:evil.test"],
    ["an @ with spaces around it", "write to mark @ evil.test", "email:mark@evil.test"],
    ["an @ with a line break after it", "write to mark@\nevil.test", "email:mark@evil.test"],
    ["a worded at", "write to mark at evil dot test", "email:mark@evil.test"],
    ["a bracketed @", "write to mark[@]evil.test", "email:mark@evil.test"],
    ["a worded (at)", "write to mark(at)evil[dot]test", "email:mark@evil.test"],
  ];
  for (const [name, text, ref] of separators) {
    it(`reads ${name} as a separator`, () => {
      // Control: the reference is not in the text as written.
      expect(text).not.toContain(ref.slice(ref.indexOf(":") + 1));
      expect(references(text)).toContain(ref);
    });
  }

  it("an IBAN is one only when its check digits hold", () => {
    expect(ibanChecksumHolds("GB29NWBK60161331926819")).toBe(true);
    expect(references("pay GB29 NWBK 6016 1331 9268 19")).toContain("iban:GB29NWBK60161331926819");
    // A document's account number, IBAN-shaped with wrong check digits: no IBAN (and no phone).
    const account = "account DE00123456789012345678";
    expect(references(account)).toEqual(new Set());
    // Control: the old shape-only reading took it for a (foreign) IBAN.
    expect(OLD_IBAN.test(account)).toBe(true);
    expect(references("GB28 NWBK 6016 1331 9268 19")).not.toContain("iban:GB28NWBK60161331926819");
  });

  it("reads a spaced-out IBAN, across line breaks too", () => {
    const text = "G B 2 9 N W B K\n6 0 1 6 1 3 3 1 9 2 6 8 1 9";
    expect(references(text)).toContain("iban:GB29NWBK60161331926819");
    expect(OLD_IBAN.test(text)).toBe(false);
  });

  it("keeps prose prose: sentence ends, 'at' before a time, dates, amounts, tax numbers", () => {
    for (const text of [
      "Done. Test it tomorrow.",
      "Done.\nTest it tomorrow.",
      "We meet at 10 am and at noon.",
      "Due 2024-01-01, total 12 500 000 EUR, 1,250.50 EUR.",
      "Tax number 12/345/67890, version 2.4.1.",
      "Ask std::vector about it.",
    ]) {
      expect(references(text), text).toEqual(new Set());
    }
  });
});
