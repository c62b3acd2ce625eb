import { describe, expect, it } from "vitest";
import { ended, signIn, stack, useBrowser, userToken } from "./kit.ts";

const ASK = "Compare rides from Home to Airport";

describe("signing out and in on one tab", () => {
  const b = useBrowser();

  it("shows nothing of the last user, and one Ask sends one POST", async () => {
    await signIn(b, "/console", await userToken("alex"));
    await b.page.getByLabel("Your question").fill(ASK);
    await b.page.getByRole("button", { name: "Ask" }).click();
    const first = await ended(b);
    expect(first).toContain("Status: Completed");
    expect(first).toContain(ASK);

    await b.page.getByRole("button", { name: "Sign out" }).click();
    await b.page.locator("#signin").waitFor({ state: "visible" });
    // Sam signs in on the same tab, through the form (no reload by the test).
    await b.page.getByLabel("User token").fill(await userToken("sam"));
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await b.page.locator("#content").waitFor({ state: "visible" });
    expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
    expect(b.page.url()).toBe(`${stack().api}/console`);
    expect(await b.page.locator("#query").textContent()).toBe("");
    expect(await b.page.locator("#events li").count()).toBe(0);
    // Focus starts at the page's heading after signing in.
    expect(
      await b.page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { tagName: string } } }).document
            .activeElement.tagName,
      ),
    ).toBe("H1");

    const posts: string[] = [];
    b.page.on("request", (r) => {
      if (r.method() === "POST" && /\/queries$/.test(new URL(r.url()).pathname)) posts.push(r.url());
    });
    await b.page.getByLabel("Your question").fill(ASK);
    await b.page.getByRole("button", { name: "Ask" }).click();
    expect(await ended(b)).toContain("Status: Completed");
    await new Promise((r) => setTimeout(r, 500));
    expect(posts).toHaveLength(1);
    expect(await b.page.locator("#query .query-text").count()).toBe(1);
  });

  it("a refused token signs out with the reason shown", async () => {
    await b.page.goto(`${stack().api}/console/data`);
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.reload();
    await b.page.getByLabel("User token").fill("lu.x.eyJ1IjoiYm9iIn0.x");
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => b.page.locator("#credential-error").textContent())
      .toMatch(/expired or was refused/);
  });
});
