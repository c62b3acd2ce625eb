import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { references } from "../../src/policy/index.ts";
import { characterWarnings, describeChar, skeleton, visible } from "../../src/runtime/lookalike.ts";
import {
  isIban,
  nearTrusted,
  TrustedReferences,
  type TrustedValue,
  valueWarnings,
} from "../../src/runtime/trusted-match.ts";

const SAVED = "DE02120300000000202051";
const trusted: TrustedValue[] = [
  { value: SAVED, source: "payees.list's answer" },
  { value: "morgan@lee.example", source: "contacts.lookup's answer" },
  { value: "+49 30 1234567", source: "contacts.lookup's answer" },
];
const pool = new TrustedReferences(trusted, references);
const codes = (value: string, reading: "reference" | "text" = "reference") =>
  valueWarnings(value, reading, pool, references).map((w) => w.code);

/** The cases: each looked exactly like the saved payee's IBAN in the consent a careful user approved. */
const ATTACKS: Array<[string, string, string]> = [
  ["one Cyrillic letter", "D\u041502120300000000202051", "D[Cyrillic \u0415]02120300000000202051"],
  ["a zero-width space", "DE0212030000\u200b0000202051", "DE0212030000[zero-width space]0000202051"],
  [
    "no-break spaces",
    "DE02\u00a01203\u00a00000\u00a00000\u00a02020\u00a051",
    "DE02[no-break space]1203[no-break space]0000[no-break space]0000[no-break space]2020[no-break space]51",
  ],
  [
    "full-width digits",
    "DE\uff10\uff12120300000000202051",
    "DE[full-width 0][full-width 2]120300000000202051",
  ],
];

describe("lookalike: the issue's IBANs against the saved payee's", () => {
  it.each(ATTACKS)("calls out %s, shown visibly, as near the saved payee's", (_, iban, shown) => {
    const warnings = valueWarnings(iban, "reference", pool, references);
    const near = warnings.find((w) => w.code === "near_trusted_value");
    expect(near?.message).toContain("payees.list's answer");
    expect(near?.visible).toBe(shown);
    expect(warnings.some((w) => /characters|scripts/.test(w.code))).toBe(true);
    // The near match says which payee it imitates; it is not also "unknown".
    expect(codes(iban)).not.toContain("unknown_payee");
  });

  it("control: with plain string comparison a person sees the same text and nothing tells them apart", () => {
    for (const [, iban] of ATTACKS) {
      // What a screen shows: invisibles draw nothing, lookalikes draw the same glyph.
      expect(skeleton(iban).replace(/ /g, "")).toBe(SAVED);
      // And the check the consent had before: string equality says only "different", never how or from what.
      expect(iban === SAVED).toBe(false);
      expect(references(iban).has(`iban:${SAVED}`) || !references(iban).size).toBe(true);
    }
  });

  it("the exact same IBAN, compact or grouped with ASCII spaces, has no warning", () => {
    expect(codes(SAVED)).toEqual([]);
    expect(codes("DE02 1203 0000 0000 2020 51")).toEqual([]);
  });

  it("an IBAN no saved payee has is an unknown payee, and still an IBAN with a lookalike in it", () => {
    expect(codes("GB29NWBK60161331926819")).toEqual(["unknown_payee"]);
    expect(isIban("D\u041502120300000000202051")).toBe(true);
    expect(codes("GB29NWBK6016133192681\u0417")).toEqual(
      expect.arrayContaining(["mixed_scripts", "unknown_payee"]),
    );
  });
});

describe("lookalike: characters", () => {
  it.each([
    ["\u0415", "Cyrillic \u0415"],
    ["\u03bf", "Greek \u03bf"],
    ["\u200b", "zero-width space"],
    ["\u200d", "zero-width joiner"],
    ["\u202e", "right-to-left override"],
    ["\u00ad", "soft hyphen"],
    ["\u00a0", "no-break space"],
    ["\uff14", "full-width 4"],
    ["\u212a", "Kelvin sign"],
    ["\ud835\udc00", "styled A (U+1D400)"],
    ["\u2062", "invisible U+2062"],
    ["\u2005", "space U+2005"],
  ])("names %j as %s", (c, name) => expect(describeChar(c)).toBe(name));

  it.each<[string, "reference" | "text", string[], string]>([
    ["P\u0430ypal.com", "reference", ["mixed_scripts"], "P[Cyrillic \u0430]ypal.com"],
    ["paypal\u200b.com", "reference", ["invisible_characters"], "paypal[zero-width space].com"],
    ["\u212aelvin", "reference", ["lookalike_characters"], "[Kelvin sign]elvin"],
    ["Jos\u00e9 Mart\u00ednez", "reference", [], "Jos\u00e9 Mart\u00ednez"],
    // Words wholly in one script are that script's words, in text and as a name.
    [
      "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440",
      "text",
      [],
      "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440",
    ],
    [
      "\u6771\u4eac\u30bf\u30ef\u30fc\u3078\u3088\u3046\u3053\u305d",
      "text",
      [],
      "\u6771\u4eac\u30bf\u30ef\u30fc\u3078\u3088\u3046\u3053\u305d",
    ],
    // An emoji's joiner and a no-break space in prose are how such text is written.
    [
      "Thanks \ud83d\udc69\u200d\ud83d\udcbb\u00a0see you",
      "text",
      [],
      "Thanks \ud83d\udc69\u200d\ud83d\udcbb\u00a0see you",
    ],
    [
      "Pay to DE\uff10\uff12 now",
      "text",
      ["lookalike_characters"],
      "Pay to DE[full-width 0][full-width 2] now",
    ],
    ["Hi \u202eevil", "text", ["invisible_characters"], "Hi [right-to-left override]evil"],
    ["Log in at P\u0430ypal", "text", ["mixed_scripts"], "Log in at P[Cyrillic \u0430]ypal"],
  ])("%j as %s: %j", (value, reading, expected, shown) => {
    expect(characterWarnings(value, reading).map((w) => w.code)).toEqual(expected);
    expect(visible(value, reading)).toBe(shown);
  });

  it("says which character, in words", () => {
    const [w] = characterWarnings("D\u041502");
    expect(w?.message).toContain('the 2nd character is a Cyrillic \u0415, not "E"');
  });
});

describe("lookalike: contacts", () => {
  it.each<[string, string[]]>([
    ["morgan@lee.example", []],
    ["+49 30 1234567", []],
    ["+4930 123 4567", []],
    ["m\u043ergan@lee.example", ["mixed_scripts", "near_trusted_value"]],
    ["evil@attacker.example", ["unknown_contact"]],
    ["+1 555 0100 999", ["unknown_contact"]],
    ["2026-12-03", []],
    ["attacker.example", ["unknown_contact"]],
  ])("%j → %j", (value, expected) => expect(codes(value)).toEqual(expected));

  it("without the query's trusted values only characters are checked", () => {
    expect(valueWarnings("evil@attacker.example", "reference", null, references)).toEqual([]);
  });

  it("a near match names where the trusted value came from and where they part, not the value", () => {
    const w = nearTrusted("DE02120300000000202O51", trusted);
    expect(w).toBeNull(); // An ASCII O for a 0 is visible on screen: not a lookalike of Unicode's kind.
    const n = nearTrusted("DE0212030000000020205\u0661", trusted);
    expect(n === null || !n.message.includes(SAVED)).toBe(true);
  });
});

describe("lookalike: properties", () => {
  it("an ASCII value is shown as it is and has no character warning", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary-ascii" }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
        (s) => {
          expect(visible(s)).toBe(s);
          expect(characterWarnings(s)).toEqual([]);
          expect(skeleton(s)).toBe(s);
        },
      ),
    );
  });

  it("a trusted ASCII value with an invisible character anywhere is near it, never equal", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9@.]{3,30}$/),
        fc.nat(),
        fc.constantFrom("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e"),
        (s, at, c) => {
          const i = at % (s.length + 1);
          const forged = s.slice(0, i) + c + s.slice(i);
          const w = nearTrusted(forged, [{ value: s, source: "your words" }]);
          expect(w?.code).toBe("near_trusted_value");
          expect(w?.message).toContain(`${i + 1}`);
          expect(characterWarnings(forged).map((x) => x.code)).toContain("invisible_characters");
        },
      ),
    );
  });
});

describe("lookalike: names in other scripts (TR39: only a mixed or ASCII-looking word deceives)", () => {
  it.each([
    ["Иван"],
    ["Αθήνα"],
    ["José"],
    ["José".normalize("NFD")],
    ["ß"],
    ["Müller"],
    ["Łódź"],
    ["Dvořák"],
    ["❤️"],
    ["I ❤️ Kyiv"],
  ])("%j as a reference has no warning", (value) =>
    expect(characterWarnings(value, "reference")).toEqual([]),
  );

  it.each([
    ["Mаrta", "mixed_scripts"],
    ["gοogle.com", "mixed_scripts"],
    ["a＠b.com", "lookalike_characters"],
    ["аррӏе.com", "lookalike_characters"],
    ["Ｊｏｈｎ", "lookalike_characters"],
    ["Pay\u200b", "invisible_characters"],
  ])("%j as a reference is called out (%s)", (value, code) =>
    expect(characterWarnings(value, "reference").map((w) => w.code)).toContain(code),
  );

  it("full-width letters in text are called out; an emoji's variation selector is not", () => {
    expect(characterWarnings("Dear Ｊｏｈｎ, thanks", "text").map((w) => w.code)).toEqual([
      "lookalike_characters",
    ]);
    expect(characterWarnings("Thanks ❤️", "text")).toEqual([]);
  });
});

describe("lookalike: addresses inside a text are read as references", () => {
  it.each([
    ["Please log in at https://аррӏе.com/account today", "lookalike_characters"],
    ["Write to support@аррӏе.com soon", "lookalike_characters"],
  ])("%j is called out (%s)", (body, code) => {
    const warnings = valueWarnings(body, "text", null, references);
    expect(warnings.map((w) => w.code)).toContain(code);
    expect(warnings.find((w) => w.code === code)!.message).toMatch(
      /^in (a web|an e-mail) address in this text: /,
    );
  });

  it("a mixed word in a text is called out once, by the text reading", () => {
    const warnings = valueWarnings("Log in at https://gοogle.com now", "text", null, references);
    expect(warnings.map((w) => w.code)).toEqual(["mixed_scripts"]);
  });

  it.each([
    ["Привет, встретимся в Москве"],
    ["See https://example.com/account, José"],
    ["Мой сайт: https://пример.рф"],
  ])("%j has no warning", (body) => expect(valueWarnings(body, "text", null, references)).toEqual([]));
});

describe("lookalike: an unknown contact is named honestly", () => {
  it("says the address is in neither the user's words nor a trusted answer, not that it is no contact", () => {
    const trusted = new TrustedReferences(
      [{ value: "Email my accountant", source: "your words" }],
      references,
    );
    const [w] = valueWarnings("accountant@example.com", "reference", trusted, references);
    expect(w).toEqual({
      code: "unknown_contact",
      message: "an e-mail address found neither in your words nor in an answer your policy trusts",
    });
  });
});
