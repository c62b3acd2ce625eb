/**
 * Every consent kind's view as the console renders it (the hub's views follow the same contract:
 * test/console-logic/consent-fixtures.ts), photographed for docs/console/, and the consent link
 * page of an end user without a credential: its token read from the fragment and used for that one
 * consent's requests only. The link's API side is helper B's; its answers are stubbed here.
 */
import type { Request, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { VIEWS } from "../console-logic/consent-fixtures.ts";
import { type Browser, checkPage } from "./browser.ts";
import { signIn, stack, useBrowser, userToken } from "./kit.ts";

const SID = "ses_0123456789abcdef0123456789abcdef";

/** Renders one consent into the chat page's transcript with the page's own renderer. */
const render = (b: Browser, consent: unknown) =>
  b.page.evaluate(
    ([sid, c]) => {
      const g = globalThis as unknown as {
        L: { renderConsent(sid: string, c: unknown, done: () => void): unknown };
        document: { getElementById(id: string): { replaceChildren(...n: unknown[]): void } };
      };
      g.document.getElementById("query").replaceChildren(g.L.renderConsent(sid as string, c, () => {}));
    },
    [SID, consent] as const,
  );

describe("consent views in the browser", () => {
  const b = useBrowser(async (opened) => signIn(opened, "/console", await userToken("alex")));

  for (const [name, consent] of Object.entries(VIEWS)) {
    it(`renders the ${name} view: title, fields with their sources, warnings first`, async () => {
      await render(b, consent);
      const dialog = b.page.locator("#query section.consent");
      expect(await dialog.locator(".view-title").textContent()).toBe(consent.view!.title);
      const fields = dialog.locator(".view-fields dd");
      expect(await fields.count()).toBe(consent.view!.fields.length);
      for (const [i, f] of consent.view!.fields.entries()) {
        const dd = fields.nth(i);
        if (f.value !== null) expect(await dd.locator("q").textContent()).toBe(f.value);
        expect(await dd.locator(".source").textContent()).toContain(f.sources[0]!.words);
        expect(await dd.getAttribute("class")).toContain(f.highlight ? "highlight" : "field");
      }
      const warned = consent.view!.fields.flatMap((f) => f.warnings);
      expect(await dialog.locator(".warnings li").count()).toBe(warned.length);
      if (warned.length) {
        // Warnings come before the fields they are about.
        const order = await dialog.evaluate((n) =>
          Array.from(
            (n as unknown as { querySelectorAll(s: string): Array<{ className: string }> }).querySelectorAll(
              ".warnings, .view-fields",
            ),
          ).map((x) => x.className),
        );
        expect(order).toEqual(["warnings", "view-fields"]);
      }
      expect(await dialog.locator(".reason").textContent()).toContain(consent.view!.reason);
      await checkPage(b, `consent-view-${name}`);
    });
  }

  it("shows the lookalike IBAN with its characters made visible, and picks no app", async () => {
    await render(b, VIEWS.payment);
    expect(await b.page.locator(".warnings code").first().textContent()).toBe(
      "D[Cyrillic Е]89 3704[zero-width space] 0044 0532 0130 00",
    );
    await render(b, VIEWS["app-choice"]);
    const dialog = b.page.getByRole("group", { name: "Consent: Choose the app" });
    for (const app of ["cheapcab", "swiftride"]) {
      expect(await dialog.getByRole("radio", { name: app }).isChecked()).toBe(false);
    }
    expect(await dialog.getByRole("radio", { name: "Just this once" }).isChecked()).toBe(true);
    expect(await dialog.getByRole("radio", { name: "Always (until I revoke it)" }).count()).toBe(1);
  });

  it("shows a value as text, never as markup", async () => {
    const hostile = structuredClone(VIEWS.mail!);
    hostile.view!.fields[1]!.value = '<img src="/x" id="injected">Hi';
    await render(b, hostile);
    expect(await b.page.locator(".view-fields dd q").nth(1).textContent()).toBe(
      '<img src="/x" id="injected">Hi',
    );
    expect(await b.page.locator("#injected").count()).toBe(0);
  });
});

describe("the consent link page (no credential)", () => {
  const b = useBrowser();

  it("uses the link's token for this consent's GET and POST only, stores nothing and clears the fragment", async () => {
    // A consent link's shape (credentials.ts), naming alex; its tag is not checked here (stubbed routes).
    // Open WebUI names its users by UUID; the link carries the display name it forwarded (#44).
    const user = "0f8fad5b-d9cb-469f-a165-70867728950e";
    const payload = Buffer.from(JSON.stringify({ u: user, s: SID, c: "con_pay", n: "Alex Morgan" })).toString(
      "base64url",
    );
    const link = `lc.demo.${payload}.tag`;
    const consent = {
      ...structuredClone(VIEWS.payment!),
      id: "con_pay",
      request: { text: "Pay my landlord's rent for October" },
    };
    const path = `/v1/sessions/${SID}/consents/con_pay`;
    const seen: string[] = [];
    const carried: string[] = [];
    const onRequest = async (r: Request) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith("/v1/")) seen.push(`${r.method()} ${url.pathname}`);
      const headers = await r.allHeaders().catch(() => ({}) as Record<string, string>);
      if (r.url().includes(link) || Object.values(headers).some((v) => v.includes(link))) {
        carried.push(`${r.method()} ${url.pathname}`);
      }
    };
    const posts: unknown[] = [];
    const route = async (r: Route) => {
      expect(r.request().headers().authorization).toBe(`Bearer ${link}`);
      if (r.request().method() === "POST") {
        posts.push(r.request().postDataJSON());
        return r.fulfill({ json: { ...consent, status: "allowed", scope: "once" } });
      }
      return r.fulfill({ json: consent });
    };
    await b.page.route(`**${path}`, route);
    b.context.on("request", onRequest);
    try {
      await b.page.goto(`${stack().api}/console/sessions/${SID}/consents/con_pay#link=${link}`);
      const dialog = b.page.getByRole("group", { name: /Consent: An action that cannot be undone/ });
      await dialog.waitFor();
      expect(b.page.url()).toBe(`${stack().api}/console/sessions/${SID}/consents/con_pay`);
      expect(await b.page.locator("#signin").isHidden()).toBe(true);
      expect(await b.page.locator("#who").textContent()).toBe(
        "Answering as “Alex Morgan” (from your chat's link)",
      );
      expect(await b.page.locator("#who").textContent()).not.toContain(user);
      // The request in the user's own words, quoted: what tells two pending links apart.
      expect(await b.page.locator("#query q").textContent()).toBe("Pay my landlord's rent for October");
      expect(await b.page.locator("#signout").isHidden()).toBe(true);
      expect(await b.page.evaluate(() => sessionStorage.length)).toBe(0);
      await checkPage(b, "consent-link-page");
      await dialog.getByRole("button", { name: "Allow" }).click();
      await expect.poll(() => b.page.locator("#consent .answered").textContent()).toContain("allowed");
      expect(await b.page.locator("#query").textContent()).toMatch(/Your chat shows the outcome/);
      expect(posts).toEqual([{ decision: "allow", scope: "once" }]);
      expect(seen).toEqual([`GET ${path}`, `POST ${path}`]);
      expect(carried).toEqual(seen);
      expect(await b.page.evaluate(() => sessionStorage.length)).toBe(0);
    } finally {
      b.context.off("request", onRequest);
      await b.page.unroute(`**${path}`, route);
    }
  });
});
