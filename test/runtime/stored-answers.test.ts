import { describe, expect, it } from "vitest";
import type { Vouch } from "../../src/policy/index.ts";
import { argStandings, remediedOf } from "../../src/runtime/stored-answers.ts";
import type { Labeled } from "../../src/runtime/values.ts";

const at = (integrity: string): Labeled => ({
  value: "x",
  label: { confidentiality: "public", integrity },
  origins: [],
  provenance: [],
});
const matched: Vouch = {
  by: "match",
  source: "steps[0]",
  candidates: 3,
  origins: ["c.list"],
  contentMade: true,
};
const sanitised: Vouch = { by: "sanitise", references: 0 };

describe("what the gate derives for stored answers and the assessment", () => {
  it("reads each argument as top, matched (with its holders) or content's, remedied or not", () => {
    const vouchedBy = new Map<string, Vouch>([
      ["to", matched],
      ["body", sanitised],
    ]);
    const args = { to: at("untrusted"), body: at("untrusted"), cc: at("untrusted"), subject: at("user") };
    expect(argStandings(args, vouchedBy, "user")).toEqual({
      to: { by: "match", origins: ["c.list"], contentMade: true },
      body: { by: "content" },
      cc: { by: "content" },
      subject: { by: "top" },
    });
  });

  it("words the remedied arguments by name and count, never a value", () => {
    expect(
      remediedOf(
        new Map<string, Vouch>([
          ["to", matched],
          ["body", sanitised],
        ]),
      ),
    ).toEqual([
      { argument: "to", by: "match", source: "steps[0]", candidates: 3 },
      { argument: "body", by: "sanitise" },
    ]);
  });
});
