import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage } from "./browser.ts";
import { openWebUiTurn, signIn, stack, useBrowser, userToken } from "./kit.ts";

const DEMO = "Email the total of this month's invoices to my accountant";

/** The OpenAI-compatible endpoint's answer to a chat message, as a chat UI would send it. */
async function chat(token: string, text: string): Promise<string> {
  const res = await fetch(`${stack().api}/v1/openai/chat/completions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ model: "lattice", messages: [{ role: "user", content: text }] }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]!.message.content;
}

describe("a consent link from a stock chat frontend, for a user with no Lattice credential", () => {
  const b = useBrowser();

  it("answers in the console from the link alone, stores nothing, and the next chat turn shows the outcome", async () => {
    const chatId = crypto.randomUUID();
    const history = [{ role: "user", content: DEMO }];
    const asked = await openWebUiTurn(history, chatId);
    const link = /http:\/\/\S+\/consents\/[A-Za-z0-9_-]+#link=lc\.[A-Za-z0-9._-]+/.exec(asked)?.[0];
    expect(link, asked).toBeDefined();

    await b.page.goto(`${stack().api}/console`);
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.goto(link!);
    const consent = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
    await consent.waitFor();
    // The token left the address bar at once and went into no storage; no sign-in was asked.
    expect(new URL(b.page.url()).hash).toBe("");
    expect(await b.page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    expect(await b.page.locator("#who").textContent()).toBe(
      "Answering as “Alex Demo” (from your chat's link)",
    );
    expect(await consent.locator(".facts").textContent()).toContain("mail.send");

    await consent.getByRole("button", { name: "Allow" }).click();
    await expect.poll(() => b.page.locator("#consent .answered").textContent()).toContain("allowed");
    expect(await b.page.locator("#query").textContent()).toMatch(/Your chat shows the outcome/);
    await checkPage(b, "consent-link-chat");
    expect(await b.page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);

    history.push({ role: "user", content: "Who is my landlord?" });
    const outcome = await openWebUiTurn(history, chatId);
    // The outcome in words, then the new message answered (not dropped).
    expect(outcome).toMatch(/✓ Done: the e-mail to “[^”]+” was sent\./);
    expect(outcome).toContain("Morgan Lee");
    expect(outcome).not.toMatch(/could not answer|not run/);
  });
});

describe("a consent link from the OpenAI-compatible endpoint", () => {
  const b = useBrowser();

  it("opens the console's page for that consent, where the user denies it and the query fails", async () => {
    const token = await userToken("alex");
    const answer = await chat(token, DEMO);
    const link = new RegExp(`${stack().api}/console/sessions/ses_[a-f0-9]{32}/consents/[A-Za-z0-9_-]+`).exec(
      answer,
    )?.[0];
    expect(link, answer).toBeDefined();

    await signIn(b, new URL(link!).pathname, token);
    const consent = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
    await consent.waitFor();
    expect(await consent.locator(".facts").textContent()).toContain("mail.send");
    expect(await consent.locator(".assessment").textContent()).toMatch(/Lattice's assessment/);
    await checkPage(b, "consent-link");

    await consent.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => b.page.locator("#consent .answered").textContent()).toContain("denied");
    const status = b.page.locator("#query .status");
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe("Status: Failed");
    expect(await b.page.locator("#query .error").textContent()).toContain("consent_denied");
    // On the consent page the query is shown without its consents: the one dialog is the page's own.
    expect(await b.page.locator("#query .consent").count()).toBe(0);
    await checkPage(b, "consent-denied");
  });

  it("re-reads its consent when it is answered elsewhere (another tab, the chat product)", async () => {
    const token = await userToken("alex");
    const link = /\/console\/sessions\/(ses_[a-f0-9]{32})\/consents\/([A-Za-z0-9_-]+)/.exec(
      await chat(token, DEMO),
    );
    expect(link).not.toBeNull();
    await signIn(b, link![0], token);
    const consent = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
    await consent.waitFor();
    await apiCall(stack().api, token, "POST", `/v1/sessions/${link![1]}/consents/${link![2]}`, {
      decision: "deny",
      scope: "once",
    });
    await expect.poll(() => b.page.locator("#consent .answered").textContent()).toContain("denied");
    expect(await b.page.locator("#consent button").count()).toBe(0);
  });

  it("refuses an API key where a user token belongs: the frontend key never enters the browser", async () => {
    await b.page.goto(`${stack().api}/console`);
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.reload();
    await b.page.getByLabel("User token").fill(stack().demo.keys.frontend);
    await b.page.getByRole("button", { name: "Sign in" }).click();
    expect(await b.page.getByRole("alert").first().textContent()).toMatch(/not a user token/);
    expect(await b.page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});
