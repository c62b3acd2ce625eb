import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, checkPage, openBrowser } from "./browser.ts";
import { signIn, stack, userToken } from "./kit.ts";

const DEMO = "Email the total of this month's invoices to my accountant";

describe("chat and consents in the browser", () => {
  let b: Browser;
  beforeAll(async () => {
    b = await openBrowser(stack().api);
  });
  afterAll(async () => {
    await b?.close();
  });

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
    // The live event list saw the planning and the consent request from the session stream.
    await expect
      .poll(() => b.page.locator("#events li").allTextContents())
      .toContain("Your consent is asked (irreversible)");
    await checkPage(b, "chat-consent");

    await consent.getByRole("button", { name: "Allow" }).click();
    const status = b.page.locator("#query .status");
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe("Status: Completed");
    expect(await b.page.locator("#query .consent .answered").textContent()).toContain("allowed");
    expect(await b.page.locator("#query .display .item").count()).toBeGreaterThan(0);
    await checkPage(b, "chat-result");
  });
});
