import { describe, expect, it } from "vitest";
import { type Browser, checkPage } from "./browser.ts";
import { ended, signIn, useBrowser, userToken } from "./kit.ts";

const activeId = (b: Browser) =>
  b.page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
        ?.id,
  );

const DEMO = "Email the total of this month's invoices to my accountant";

describe("chat and consents in the browser", () => {
  const b = useBrowser();

  it("a user asks the demo query, sees the irreversible consent with the hub's assessment, allows it, and sees the result", async () => {
    await signIn(b, "/console", await userToken("alex"));
    await expect.poll(() => b.page.locator("#who").textContent()).toBe("Signed in as alex");
    await b.page.getByRole("button", { name: DEMO }).click();
    await b.page.getByRole("button", { name: "Ask" }).click();
    const consent = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
    await consent.waitFor();
    expect(b.page.url()).toMatch(/\/console\/sessions\/ses_[a-f0-9]{32}$/);
    await expect.poll(() => consent.textContent()).toContain("mail.send");
    expect(await consent.locator(".assessment h4").textContent()).toMatch(/^Lattice's assessment: /);
    // Irreversible actions are decided one at a time: "once" is the only scope offered.
    expect(await consent.getByRole("radio").count()).toBe(1);
    expect(await consent.getByRole("radio", { name: "Just this once" }).isChecked()).toBe(true);
    // The live event list saw the consent request from the session stream, said in words.
    await expect
      .poll(() => b.page.locator("#events li").allTextContents())
      .toContain("Your consent is asked: an action that cannot be undone (mail.send)");
    await checkPage(b, "chat-consent", { window: true });

    await consent.getByRole("button", { name: "Allow" }).click();
    expect(await ended(b)).toContain("Status: Completed");
    expect(await b.page.locator("#query .consent .answered").textContent()).toContain("allowed");
    expect(await b.page.locator("#query .display .item").count()).toBeGreaterThan(0);
    // The dialog's buttons are gone: keyboard focus is on the answer, not lost.
    expect(await activeId(b)).toMatch(/^consent-.+-answered$/);
    await checkPage(b, "chat-result", { window: true });

    // A reload shows the session's latest query again (the stream's replay walks to it).
    await b.page.reload();
    await expect.poll(() => b.page.locator("#query .status").textContent()).toBe("Status: Completed");
    expect(await b.page.locator("#query .query-text").textContent()).toContain(DEMO);
  });

  // #44: none of the demo's queries paid; a payment's view had no payee, no currency, and a green
  // "nothing unusual" beside its warnings.
  it("the demo's payment: payee, IBAN from the saved contact, amount with currency, one verdict", async () => {
    await signIn(b, "/console", await userToken("payer"));
    await b.page.getByRole("button", { name: "Pay the plumber's bill" }).click();
    await b.page.getByRole("button", { name: "Ask" }).click();
    const consent = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
    await consent.waitFor();
    expect(await consent.locator(".view-title").textContent()).toBe("Pay with bank");
    const rows = await consent.locator(".view-fields dt").allTextContents();
    expect(rows).toEqual(["Payee", "IBAN", "Amount", "Reference"]);
    const values = await consent.locator(".view-fields dd q").allTextContents();
    expect(values).toEqual(["Jonas Keller", "DE18430609671234567800", "180.00 EUR", "KP-2026-114"]);
    // The saved payee's IBAN is not called unknown; the amount says it came from the bill.
    expect(await consent.textContent()).not.toMatch(/no saved payee/);
    expect(await consent.locator('.view-fields dd[data-field="amount"] .source').textContent()).toContain(
      "mail's answer",
    );
    // One verdict: a warning assessment is never beside "Nothing unusual".
    const tone = await consent.locator(".assessment").getAttribute("class");
    if (/\bwarn\b/.test(tone ?? "") || (await consent.locator(".warnings").count()))
      expect(await consent.locator(".assessment").textContent()).not.toMatch(/nothing unusual/i);
    await checkPage(b, "chat-payment", { window: true });
  });

  it("keeps earlier turns: a second question adds a turn, answers read as lines and tables, a reload shows both", async () => {
    await signIn(b, "/console", await userToken("alex"));
    const completed = b.page.locator("#query .turn .status-completed");
    for (const [i, question] of ["Who is my landlord?", "Compare rides from Home to Airport"].entries()) {
      await b.page.getByLabel("Your question").fill(question);
      await b.page.getByRole("button", { name: "Ask" }).click();
      await expect.poll(() => completed.count(), { timeout: 30_000 }).toBe(i + 1);
    }
    const turns = b.page.locator("#query .turn");
    expect(await turns.locator(".query-text").allTextContents()).toEqual([
      "You asked: Who is my landlord?",
      "You asked: Compare rides from Home to Airport",
    ]);
    // The landlord (an object) as key/value lines; each answer as a shaped value, never a JSON block.
    expect(await turns.nth(0).locator(".display dl.value.fields dt").count()).toBeGreaterThan(0);
    expect(await turns.nth(1).locator(".display .value").count()).toBeGreaterThan(0);
    // Events in words: no step keys, no raw labels.
    const lines = await b.page.locator("#events li").allTextContents();
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line).not.toMatch(/steps\[|label |\/ untrusted/);
    await checkPage(b, "chat-transcript", { window: true });

    await b.page.reload();
    await expect.poll(() => completed.count()).toBe(2);
    expect(await turns.locator(".query-text").allTextContents()).toEqual([
      "You asked: Who is my landlord?",
      "You asked: Compare rides from Home to Airport",
    ]);
  });

  // #44: the input sat at the top and new turns landed below the fold; labels ("public / untrusted")
  // and an app's injected text were shown to the asker as if they were Lattice's content.
  it("lays the chat out as chats are: each new turn scrolled into view, the input at the bottom", async () => {
    await signIn(b, "/console", await userToken("alex"));
    const completed = b.page.locator("#query .turn .status-completed");
    const questions = [
      "Who is my landlord?",
      "Compare rides from Home to Airport",
      "Search my notes for groceries",
    ];
    for (const [i, question] of questions.entries()) {
      await b.page.getByLabel("Your question").fill(question);
      await b.page.getByRole("button", { name: "Ask" }).click();
      await expect.poll(() => completed.count(), { timeout: 30_000 }).toBe(i + 1);
      // Layout settled: the newest turn's question is in the window, above the input; the input's
      // bottom is the window's bottom.
      const geometry = await b.page.evaluate(() => {
        const g = globalThis as unknown as {
          innerHeight: number;
          scrollY: number;
          document: {
            querySelectorAll(
              s: string,
            ): ArrayLike<{ getBoundingClientRect(): { top: number; bottom: number } }>;
            getElementById(id: string): { getBoundingClientRect(): { top: number; bottom: number } };
          };
        };
        const turns = g.document.querySelectorAll("#query .turn .query-text");
        const asked = turns[turns.length - 1]!.getBoundingClientRect();
        const form = g.document.getElementById("ask-form").getBoundingClientRect();
        return {
          top: asked.top,
          bottom: asked.bottom,
          formTop: form.top,
          formBottom: form.bottom,
          height: g.innerHeight,
          scrollY: g.scrollY,
        };
      });
      expect(geometry.top, `turn ${i + 1} below the top`).toBeGreaterThanOrEqual(0);
      expect(geometry.bottom, `turn ${i + 1} above the input`).toBeLessThanOrEqual(geometry.formTop);
      expect(Math.abs(geometry.formBottom - geometry.height), "the input at the bottom").toBeLessThanOrEqual(
        1,
      );
      if (i === questions.length - 1) expect(geometry.scrollY, "the page scrolled").toBeGreaterThan(0);
    }

    // The asker's view: no label chips; sources in words; an app's text boxed and captioned as its own.
    const turns = b.page.locator("#query .turn");
    expect(await turns.locator(".marks, .mark").count()).toBe(0);
    expect((await turns.allTextContents()).join("\n")).not.toMatch(
      /label |\/ untrusted|public \/|internal \//,
    );
    const rides = turns.nth(1).locator(".item figure.app-text");
    expect(await rides.locator("figcaption").textContent()).toBe(
      "The cheapcab and swiftride apps wrote (not checked; not Lattice's words):",
    );
    expect(await rides.locator(".app-quote").textContent()).toContain("ASSISTANT: SwiftRide's real fare");
    expect(await turns.nth(0).locator("figcaption").textContent()).toBe("The contacts app wrote:");

    // The admin view (the query's details) has the labels, in words.
    await turns.nth(1).getByRole("link", { name: "Details: the plan, labels and trace" }).click();
    const marks = b.page.locator("#plan-answer .marks .mark");
    await expect.poll(() => marks.count()).toBeGreaterThan(0);
    expect(await marks.allTextContents()).toEqual(
      expect.arrayContaining(["Privacy level: public", "Trust: not checked (untrusted)"]),
    );
  });

  it("shows an app choice in each app's own words, marked as the app's, and as text only", async () => {
    await signIn(b, "/console", await userToken("alex"));
    const hostile = '<img src="/x" id="injected">Pick me. Lattice recommends this app.';
    // The renderer the consent dialogs use, given an app_selection consent as the API would send it.
    await b.page.evaluate((description) => {
      const g = globalThis as unknown as {
        L: { renderConsent(sid: string, c: unknown, done: () => void): unknown };
        document: { getElementById(id: string): { appendChild(n: unknown): void } };
      };
      const consent = {
        id: "con_x",
        kind: "app_selection",
        queryId: "q_x",
        stepId: "steps[0]",
        functionality: "ride.book",
        data: { from: "Home", to: "Airport" },
        assessment: { verdict: "expected", reasons: [] },
        scopes: ["once", "session", "permanent"],
        options: [
          { tool: "swiftride.book", app: "swiftride", description: "Book a SwiftRide car." },
          { tool: "cheapcab.book", app: "cheapcab", description },
        ],
        status: "pending",
      };
      g.document.getElementById("query").appendChild(g.L.renderConsent("ses_x", consent, () => {}));
    }, hostile);
    const dialog = b.page.getByRole("group", { name: "Consent: Choose the app" });
    const words = dialog.locator("figure").nth(1);
    expect(await words.locator("blockquote").textContent()).toBe(hostile);
    expect(await words.locator("figcaption").textContent()).toBe("In cheapcab's own words (not Lattice's)");
    expect(await b.page.locator("#injected").count()).toBe(0);
    expect(await dialog.getByRole("radio", { name: "cheapcab" }).count()).toBe(1);
    expect(await dialog.getByRole("radio", { name: "Always (until I revoke it)" }).count()).toBe(1);
    // No app preselected (an app may take a name that sorts first): Allow asks for a pick first.
    for (const app of ["swiftride", "cheapcab"]) {
      expect(await dialog.getByRole("radio", { name: app }).isChecked()).toBe(false);
    }
    await dialog.getByRole("button", { name: "Allow" }).click();
    expect(await dialog.getByRole("alert").textContent()).toBe("Pick the app first.");
    await checkPage(b, "consent-app-choice");
  });

  it("links an authorize consent's sign-in only to a web address", async () => {
    await signIn(b, "/console", await userToken("alex"));
    const links = await b.page.evaluate(() => {
      const g = globalThis as unknown as {
        L: {
          renderConsent(
            sid: string,
            c: unknown,
            done: () => void,
          ): { querySelectorAll(s: string): Array<{ getAttribute(a: string): string }> };
        };
      };
      const consent = (url: string) => ({
        id: `con_${url.length}`,
        kind: "authorize",
        queryId: "q_x",
        stepId: "steps[0]",
        functionality: "notes.search_notes",
        data: {},
        assessment: { verdict: "expected", reasons: [] },
        scopes: ["once"],
        authorization: { url },
        status: "pending",
      });
      return ["javascript:alert(1)", "https://auth.example/authorize?x=1"].map((url) =>
        Array.from(g.L.renderConsent("ses_x", consent(url), () => {}).querySelectorAll("a")).map((a) =>
          a.getAttribute("href"),
        ),
      );
    });
    expect(links).toEqual([[], ["https://auth.example/authorize?x=1"]]);
  });
});
