/**
 * A sign-in link (`/console…#token=lu.…`) can be made by anyone with their own token (login CSRF):
 * the console keeps and uses its token only after the person confirms the user it names.
 */
import type { Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type Browser, checkPage } from "./browser.ts";
import { signIn, stack, useBrowser, userToken } from "./kit.ts";

/** Requests the browser makes from now on: every API call, and those that carry `token` anywhere. */
function watchRequests(b: Browser, token: string) {
  const api: string[] = [];
  const carried: string[] = [];
  const onRequest = async (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/v1/")) api.push(`${r.method()} ${url.pathname}`);
    const headers = await r.allHeaders().catch(() => ({}) as Record<string, string>);
    if (r.url().includes(token) || Object.values(headers).some((v) => v.includes(token))) {
      carried.push(`${r.method()} ${url.pathname}`);
    }
  };
  b.context.on("request", onRequest);
  return { api, carried, stop: () => b.context.off("request", onRequest) };
}

const settle = () => new Promise((r) => setTimeout(r, 750));
const stored = (page: Page) => page.evaluate(() => sessionStorage.getItem("lattice.user"));
const question = (page: Page) => page.getByRole("region", { name: "Sign in from a link?" });

describe("a sign-in link", () => {
  const b = useBrowser();

  it("opened in a fresh tab, asks first, naming the link's user; declined, it leaves the tab signed out", async () => {
    const mallory = await userToken("mallory");
    const seen = watchRequests(b, mallory);
    try {
      // This describe block's browser is fresh: its first page has never been signed in.
      await b.page.goto(`${stack().api}/console#token=${mallory}`);
      const asked = question(b.page);
      await asked.waitFor();
      expect(await b.page.locator("#link-user").textContent()).toBe("mallory");
      expect(await b.page.locator("#link-tenant").textContent()).toBe(stack().demo.tenantId);
      expect(await asked.textContent()).toMatch(/From\s*a link/);
      expect(await b.page.locator("#link-current").isHidden()).toBe(true);
      await asked.getByRole("button", { name: "Continue as mallory" }).waitFor();
      expect(await b.page.locator("#content").isHidden()).toBe(true);
      expect(await b.page.locator("#who").textContent()).toBe("Not signed in");
      expect(b.page.url()).toBe(`${stack().api}/console`);
      expect(await stored(b.page)).toBeNull();
      await checkPage(b, "signin-link");

      await asked.getByRole("button", { name: "Don't sign in" }).click();
      await b.page.locator("#signin").waitFor({ state: "visible" });
      expect(await asked.isHidden()).toBe(true);
      expect(await b.page.locator("#who").textContent()).toBe("Not signed in");
      expect(await stored(b.page)).toBeNull();
      await settle();
      expect(seen.carried).toEqual([]);
      expect(seen.api).toEqual([]);
    } finally {
      seen.stop();
    }
  });

  it("confirmed, signs the tab in as the link's user", async () => {
    const mallory = await userToken("mallory");
    await b.page.goto(`${stack().api}/console/data`);
    await b.page.evaluate(() => sessionStorage.clear());
    const seen = watchRequests(b, mallory);
    try {
      await b.page.goto(`${stack().api}/console/data#token=${mallory}`);
      await question(b.page).waitFor();
      await settle();
      expect(seen.carried).toEqual([]);
      await b.page.getByRole("button", { name: "Continue as mallory" }).click();
      await b.page.locator("#content").waitFor({ state: "visible" });
      expect(await b.page.locator("#who").textContent()).toBe("Signed in as mallory");
      expect(await stored(b.page)).toBe(mallory);
      await expect.poll(() => seen.carried).toContain("GET /v1/users/mallory/artifacts");
    } finally {
      seen.stop();
    }
  });

  it("naming someone else than the user signed in, asks with both names; declined, the first user stays", async () => {
    const sam = await userToken("sam");
    const alex = await userToken("alex");
    await signIn(b, "/console/data", sam);
    const seen = watchRequests(b, alex);
    try {
      // A link to the page already open changes only the fragment: it is asked about too.
      await b.page.goto(`${stack().api}/console/data#token=${alex}`);
      const asked = question(b.page);
      await asked.waitFor();
      expect(await b.page.locator("#link-user").textContent()).toBe("alex");
      expect(await b.page.locator("#link-current").textContent()).toBe(
        `This tab is signed in as sam (tenant ${stack().demo.tenantId}); that stays if you don't sign in.`,
      );
      expect(await b.page.locator("#content").isHidden()).toBe(true);
      await asked.getByRole("button", { name: "Don't sign in" }).click();
      await b.page.locator("#content").waitFor({ state: "visible" });
      expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
      expect(await stored(b.page)).toBe(sam);
      expect(b.page.url()).toBe(`${stack().api}/console/data`);

      // Opened afresh (a whole page load, not a fragment change): asked; declined, sam's page loads.
      await b.page.goto(`${stack().api}/console`);
      await b.page.goto(`${stack().api}/console/data#token=${alex}`);
      await asked.waitFor();
      expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
      expect(await b.page.locator("#content").isHidden()).toBe(true);
      await asked.getByRole("button", { name: "Don't sign in" }).click();
      await b.page.locator("#content").waitFor({ state: "visible" });
      expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
      expect(await stored(b.page)).toBe(sam);

      // And once more, confirmed.
      await b.page.goto(`${stack().api}/console`);
      await b.page.goto(`${stack().api}/console/data#token=${alex}`);
      await asked.waitFor();
      await settle();
      expect(seen.carried).toEqual([]);
      await asked.getByRole("button", { name: "Continue as alex" }).click();
      await expect.poll(() => b.page.locator("#who").textContent()).toBe("Signed in as alex");

      // The same token again (a second click on the link) asks nothing.
      await b.page.goto(`${stack().api}/console/data#token=${alex}`);
      await b.page.locator("#content").waitFor({ state: "visible" });
      await settle();
      expect(await asked.isHidden()).toBe(true);
      expect(await b.page.locator("#who").textContent()).toBe("Signed in as alex");
    } finally {
      seen.stop();
    }
  });

  it("asks nothing about a token naming what no real token can (a forgery), and keeps none", async () => {
    // A user id outside the API's alphabet: a right-to-left override would make it read "mallory".
    const payload = Buffer.from(JSON.stringify({ u: "alex\u202Eyrollam", exp: 2e9, kid: "k" })).toString(
      "base64url",
    );
    const forged = `lu.${stack().demo.tenantId}.${payload}.${"A".repeat(43)}`;
    const seen = watchRequests(b, forged);
    try {
      await b.page.goto(`${stack().api}/console`);
      await b.page.evaluate(() => sessionStorage.clear());
      await b.page.goto(`${stack().api}/console/data#token=${forged}`);
      await expect
        .poll(() => b.page.locator("#credential-error").textContent())
        .toBe("The link's sign-in could not be read; sign in here.");
      expect(await question(b.page).isHidden()).toBe(true);
      expect(await stored(b.page)).toBeNull();
      await settle();
      expect(seen.carried).toEqual([]);
    } finally {
      seen.stop();
    }
  });

  it("control: with the question answered yes unasked, the same link signs a fresh tab in silently", async () => {
    const mallory = await userToken("mallory");
    const tab = await b.context.newPage();
    const seen = watchRequests(b, mallory);
    try {
      // The defence off in this tab only, by the test's browser: the server cannot switch it off.
      let patched = false;
      await tab.route("**/console/static/console.js", async (route) => {
        const served = await route.fetch();
        const script = await served.text();
        const off = script.replace(
          "function askAboutLink(token) {",
          "function askAboutLink(token) { link = token; return answerLink(true);",
        );
        patched = off !== script;
        await route.fulfill({ response: served, body: off });
      });
      await tab.goto(`${stack().api}/console/data#token=${mallory}`);
      await expect.poll(() => tab.locator("#who").textContent()).toBe("Signed in as mallory");
      expect(patched).toBe(true);
      expect(await question(tab).isHidden()).toBe(true);
      expect(await stored(tab)).toBe(mallory);
      await expect.poll(() => seen.carried).toContain("GET /v1/users/mallory/artifacts");
    } finally {
      seen.stop();
      await tab.close();
    }
  });
});
