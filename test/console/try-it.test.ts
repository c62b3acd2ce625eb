/** The developer page's try-it panel (issue #33): pick a version and functionality, edit the input, see the judgement. */
import { describe, expect, it } from "vitest";
import { checkPage } from "./browser.ts";
import { signIn, stack, useBrowser } from "./kit.ts";

describe("the developer's try-it panel in the browser", () => {
  const b = useBrowser();

  it("calls a version's functionality and shows the signed request, the verdicts and the app's words", async () => {
    await signIn(b, "/console/developer", stack().demo.keys.developer);
    const panel = b.page.locator("#try");
    await panel.getByLabel("Version").waitFor();
    const mail = await panel
      .getByLabel("Version")
      .locator("option", { hasText: /^mail version \d+ \(approved\)$/ })
      .first()
      .getAttribute("value");
    await panel.getByLabel("Version").selectOption(mail!);
    await panel.getByLabel("Functionality").selectOption("search");
    await panel.getByLabel(/^Input/).fill('{"query": "invoice"}');
    await panel.getByRole("button", { name: "Try it" }).click();

    const result = b.page.locator("#try-result");
    await expect.poll(() => result.locator("h3").textContent(), { timeout: 15_000 }).toBe("Outcome: ok");
    const judgement = await result.getByRole("list", { name: "Judgement" }).textContent();
    expect(judgement).toContain("Input against the request schema: passed");
    expect(judgement).toContain("Answer against the response schema: passed");
    expect(judgement).toMatch(/as user _lattice_try_/);
    expect(await result.getByRole("table", { name: "Request headers" }).textContent()).toMatch(
      /X-Lattice-Signaturet=\d+,v2=[0-9a-f]{64}/,
    );
    // The app's answer is quoted and marked as its words.
    expect(await result.locator("figure.app-words figcaption").textContent()).toContain(
      "the app's words, not Lattice's",
    );
    await checkPage(b, "developer-try");

    // An input that breaks the schema: judged, and nothing sent.
    await panel.getByLabel(/^Input/).fill('{"query": 42}');
    await panel.getByRole("button", { name: "Try it" }).click();
    await expect.poll(() => result.locator("h3").textContent()).toBe("Outcome: invalid_request");
    expect(await result.textContent()).toContain("Nothing was sent.");

    // Not JSON: said at the field, nothing asked of the API.
    await panel.getByLabel(/^Input/).fill("{nope");
    await panel.getByRole("button", { name: "Try it" }).click();
    await expect.poll(() => panel.locator("#try-errors").textContent()).toContain("Not JSON");
    expect(await panel.getByLabel(/^Input/).getAttribute("aria-invalid")).toBe("true");
  });
});
