/** The console's small parsers and summaries: SSE frames, policy error paths, audit rows, catalog labels. */
import { describe, expect, it } from "vitest";
import { auditSummary } from "../../src/console/browser/audit-summary.ts";
import { manifestDiff } from "../../src/console/browser/manifest-diff.ts";
import { jsonPaths, pathSegments, SEP, spanOf } from "../../src/console/browser/policy-paths.ts";
import { takeFrames } from "../../src/console/browser/sse.ts";
import { catalogLabel, labelWords, writtenBy } from "../../src/console/browser/words.ts";

describe("server-sent event frames", () => {
  it.each([
    ["id: 1\ndata: {}\n\n", [{ id: 1, data: "{}" }], ""],
    ["id: 2\r\ndata: a\r\ndata: b\r\n\r\nid: 3\ndata:", [{ id: 2, data: "a\nb" }], "id: 3\ndata:"],
    [": ping\n\n", [{ id: null, data: "" }], ""],
    ["data: x", [], "data: x"],
  ])("reads %j", (buffer, frames, rest) => {
    expect(takeFrames(buffer)).toEqual({ frames, rest });
  });
});

describe("a policy error's field in the text", () => {
  it.each([
    ['body.tools["a.b\\"c"][2].x', ["tools", 'a.b"c', "2", "x"]],
    ["body.defaultRoles.1", ["defaultRoles", "1"]],
    ["lattices.confidentiality", ["lattices", "confidentiality"]],
  ])("parses %s", (field, segs) => {
    expect(pathSegments(field)).toEqual(segs);
  });

  it("finds a key with a dot in it, not an earlier key of the same name", () => {
    const text = JSON.stringify(
      { lattices: { integrity: [] }, tools: { "contacts.list": { output: { integrity: "x" } } } },
      null,
      2,
    );
    const at = text.indexOf('"integrity"', text.indexOf('"contacts.list"'));
    expect(spanOf(text, 'body.tools["contacts.list"].output.integrity')).toEqual([at, at + 11]);
    expect(jsonPaths("[1, 2")[["1"].join(SEP)]).toBeDefined();
    expect(spanOf(text, "body.nowhere")).toBeNull();
  });
});

describe("an audit row's summary", () => {
  it.each([
    [
      { type: "api_write", detail: { method: "POST", path: "/v1/sessions", status: 201, role: "frontend" } },
      "API write: POST /v1/sessions, frontend key, status 201",
    ],
    [
      {
        type: "consent_answered",
        detail: { kind: "irreversible", decision: "deny", scope: "once", queryId: "q" },
      },
      "Consent answered: irreversible, denied, once",
    ],
    [{ type: "policy_updated", detail: {} }, "Policy updated"],
    [
      { type: "something_new", detail: { tool: "mail.send", note: "x".repeat(200) } },
      "something new: tool mail.send",
    ],
  ])("%#", (e, summary) => {
    expect(auditSummary(e)).toBe(summary);
  });
});

describe("a catalog entry's label", () => {
  it.each([
    [{ output: { confidentiality: "internal", integrity: "app" } }, "internal / app"],
    [
      { output: { confidentiality: "confidential" } },
      "confidential / untrusted (not declared: the policy's lowest)",
    ],
  ])("%#", (entry, text) => {
    expect(catalogLabel(entry, "untrusted")).toBe(text);
  });
});

describe("a manifest diff", () => {
  it("pairs named functionalities: one changed description is one row", () => {
    const before = {
      name: "a",
      functionalities: [
        { name: "x", description: "old" },
        { name: "y", description: "same" },
      ],
    };
    const after = {
      name: "a",
      functionalities: [
        { name: "y", description: "same" },
        { name: "x", description: "new" },
      ],
    };
    expect(manifestDiff(before, after)).toEqual([
      { path: "functionalities[x].description", before: '"old"', after: '"new"' },
    ]);
  });
});

// #44: the chat showed the asker label chips ("public / untrusted") and an app's text as if it were
// Lattice's; the asker now reads whose words a value is, the labels are the admin view's, in words.
describe("whose words a shown value is", () => {
  const item = (from: string[], apps: string[], untrusted: boolean) =>
    ({ provenance: { from, apps }, untrusted }) as unknown as Parameters<typeof writtenBy>[0];
  it.each([
    [["app"], ["contacts"], false, { app: true, text: "The contacts app wrote:" }],
    [
      ["app"],
      ["cheapcab", "swiftride"],
      true,
      { app: true, text: "The cheapcab and swiftride apps wrote (not checked; not Lattice's words):" },
    ],
    [
      ["user", "model"],
      ["mail"],
      true,
      {
        app: true,
        text: "A model wrote this, reading what the mail app sent, with your words (not checked; not Lattice's words):",
      },
    ],
    [["app"], [], false, { app: true, text: "An app wrote:" }],
    [["user"], [], false, { app: false, text: "From your words" }],
    [["user", "artifacts"], [], false, { app: false, text: "From your words and your saved data" }],
  ])("from %j of %j (untrusted %s)", (from, apps, untrusted, expected) => {
    expect(writtenBy(item(from, apps, untrusted))).toEqual(expected);
  });

  it("says a label in words for the admin view", () => {
    expect(labelWords({ confidentiality: "public", integrity: "untrusted" })).toEqual([
      "Privacy level: public",
      "Trust: not checked (untrusted)",
    ]);
    expect(labelWords({ confidentiality: "internal", integrity: "user" })).toEqual([
      "Privacy level: internal",
      "Trust: trusted by your admin's policy (user)",
    ]);
  });
});
