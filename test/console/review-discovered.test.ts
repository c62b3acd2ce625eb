/**
 * The review page's block for a discovered-OAuth version, drawn by the console's own renderer on
 * the admin page. This stack cannot register such a version (the OAuth fixture is the workers
 * project's auxiliary worker, not served here), so the block is given the stored shape that
 * test/console-logic/review-discovered.test.ts checks against the manifest's schema.
 */
import { describe, expect, it } from "vitest";
import { DISCOVERED_MCP } from "../console-logic/discovered-fixture.ts";
import { seriousViolations, shotPath } from "./browser.ts";
import { signIn, stack, useBrowser } from "./kit.ts";

interface Doc {
  querySelector(s: string): { prepend(n: unknown): void } | null;
}

describe("a discovered OAuth version on the review page", () => {
  const b = useBrowser(async (br) => {
    await br.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows the issuer and the token endpoint as text in the app's box, no links; control: other auth, no block", async () => {
    await signIn(b, "/console/admin", stack().demo.keys.admin);
    const drawn = await b.page.evaluate((mcp) => {
      const w = globalThis as unknown as {
        L: { oauthBlock(id: string, mcp: unknown): unknown };
        document: Doc;
      };
      const block = w.L.oauthBlock("review-app_demo-2", mcp);
      if (block) w.document.querySelector("#content")?.prepend(block);
      return {
        discovered: block !== null,
        userToken: w.L.oauthBlock("x", { url: mcp.url, auth: { type: "user_token" } }) !== null,
      };
    }, DISCOVERED_MCP);
    expect(drawn).toEqual({ discovered: true, userToken: false });
    const block = b.page.getByRole("region", { name: /discovered at registration/ });
    const value = (term: string) =>
      block.locator("dt", { hasText: term }).locator("xpath=following-sibling::dd[1]");
    expect(await value("Authorization server (issuer)").textContent()).toBe(DISCOVERED_MCP.auth.issuer);
    expect(await value("Token endpoint").textContent()).toBe(DISCOVERED_MCP.auth.tokenUrl);
    expect(await value("Registered client id").textContent()).toBe(DISCOVERED_MCP.auth.clientId);
    // The server's addresses are data: nothing in the block navigates.
    expect(await block.locator("a, [href]").count()).toBe(0);
    expect(await block.locator("figcaption").textContent()).toBe("what the app's server pointed to");
    expect(await seriousViolations(b.page, [".oauth-discovered"])).toEqual([]);
    await block.screenshot({ path: shotPath("review-oauth-discovered") });
    await b.page.screenshot({ path: shotPath("review-oauth-discovered-page") });
    expect(b.problems).toEqual([]);
  });
});
