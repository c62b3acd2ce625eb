/**
 * A pending consent's dialog as the query view's re-renders leave it, and what a consent shows of
 * whose words and what was withheld. The consents are given to the page's renderer as the API
 * sends them (the scripted demo asks none of these kinds); answers go to a stubbed route.
 */
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type Browser, checkPage } from "./browser.ts";
import { signIn, useBrowser, userToken } from "./kit.ts";

const SID = "ses_0123456789abcdef0123456789abcdef";

const choice = {
  id: "con_pick",
  kind: "app_selection",
  queryId: "q_x",
  stepId: "steps[0]",
  functionality: "ride.book",
  data: { from: "Home", to: "Airport" },
  assessment: { verdict: "expected", reasons: [] },
  scopes: ["once", "session", "permanent"],
  options: [
    { tool: "swiftride.book", app: "swiftride", description: "Book a SwiftRide car." },
    { tool: "cheapcab.book", app: "cheapcab", description: "Book a CheapCab." },
  ],
  status: "pending",
};

const query = (display: unknown[]) => ({
  id: "q_x",
  text: "Book a ride",
  status: "awaiting_consent",
  consents: [choice],
  display,
  error: null,
});

/** Renders a query view into #query with the page's own renderer. */
const render = (b: Browser, view: unknown) =>
  b.page.evaluate(
    ([sid, v]) => {
      const g = globalThis as unknown as {
        L: { renderQuery(t: unknown, sid: string, q: unknown, done: () => void): void };
        document: { getElementById(id: string): unknown };
      };
      g.L.renderQuery(g.document.getElementById("query"), sid as string, v, () => {});
    },
    [SID, view] as const,
  );

describe("consent dialogs across re-renders", () => {
  const b = useBrowser(async (opened) => signIn(opened, "/console", await userToken("alex")));

  it("keeps the app and scope picked while other events re-render the query; Allow sends them, once", async () => {
    const posts: unknown[] = [];
    let release: () => void = () => {};
    const answered = new Promise<void>((r) => {
      release = r;
    });
    const handler = async (route: Route) => {
      posts.push(route.request().postDataJSON());
      await answered;
      await route.fulfill({ json: { ...choice, status: "allowed", scope: "session" } });
    };
    await b.page.route(`**/v1/sessions/${SID}/consents/con_pick`, handler);
    try {
      await render(b, query([]));
      const dialog = b.page.getByRole("group", { name: "Consent: Choose the app" });
      await dialog.getByRole("radio", { name: "cheapcab" }).check();
      await dialog.getByRole("radio", { name: "For this session" }).check();
      // Another event: a display item arrives and the query view is rendered again.
      const item = {
        key: "steps[1]",
        title: "Quote",
        value: { fare: 12 },
        label: { confidentiality: "public", integrity: "untrusted" },
        provenance: { from: ["app"], apps: ["swiftride"] },
        untrusted: true,
        redacted: false,
      };
      await render(b, query([item]));
      expect(await b.page.locator("#query .display .item").count()).toBe(1);
      expect(await dialog.getByRole("radio", { name: "cheapcab" }).isChecked()).toBe(true);
      expect(await dialog.getByRole("radio", { name: "For this session" }).isChecked()).toBe(true);
      // Two clicks while the answer is in flight send one answer.
      await dialog.getByRole("button", { name: "Allow" }).click();
      expect(await dialog.getByRole("button", { name: "Allow" }).isDisabled()).toBe(true);
      await dialog.getByRole("button", { name: "Allow" }).click({ force: true });
      release();
      await expect.poll(() => posts.length).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(posts).toEqual([{ decision: "allow", scope: "session", choice: "cheapcab.book" }]);
    } finally {
      await b.page.unroute(`**/v1/sessions/${SID}/consents/con_pick`, handler);
    }
  });

  it("titles a collaboration's data as the asking app's model's words, and shows withheld values as such", async () => {
    const collaboration = {
      id: "con_collab",
      kind: "collaboration",
      queryId: "q_y",
      stepId: "steps[0]",
      from: ["notes"],
      functionality: "mail.send",
      data: {
        to: "accountant@example.com",
        body: { withheld: true, label: { confidentiality: "confidential", integrity: "trusted" } },
      },
      assessment: { verdict: "warning", reasons: ["An app's model wrote this request."] },
      scopes: ["once"],
      status: "pending",
    };
    await render(b, { ...query([]), id: "q_y", consents: [collaboration] });
    const dialog = b.page.getByRole("group", { name: "Consent: An app asks another app" });
    expect(await dialog.locator("dt").allTextContents()).toContain(
      "Written by notes's model (not Lattice's)",
    );
    const data = await dialog.locator("dd pre").textContent();
    expect(data).toContain('"body": withheld (confidential)');
    expect(data).not.toContain('"withheld"');
    await checkPage(b, "consent-collaboration");
  });

  it("names the sign-in host of an authorize consent and offers only Deny", async () => {
    const authorize = {
      id: "con_auth",
      kind: "authorize",
      queryId: "q_z",
      stepId: "steps[0]",
      functionality: "notes.search_notes",
      data: {},
      assessment: { verdict: "expected", reasons: [] },
      scopes: ["once"],
      authorization: { url: "https://auth.example/authorize?x=1" },
      status: "pending",
    };
    await render(b, { ...query([]), id: "q_z", consents: [authorize] });
    const dialog = b.page.getByRole("group", { name: "Consent: Sign in to an app" });
    expect(await dialog.getByRole("link").textContent()).toBe("Sign in at auth.example");
    expect(await dialog.getByRole("button").allTextContents()).toEqual(["Deny"]);
  });
});
