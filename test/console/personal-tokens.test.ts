/**
 * Personal tokens on My data: a `user_token` MCP app (server-everything from npm, which takes any
 * Bearer token) registered and approved under wrangler dev; the user sets their token in a password
 * field, the page says "set" and never shows it (nor keeps it anywhere in the DOM), the API agrees;
 * removed, the page and the API say "not set".
 */
import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage, shotPath } from "./browser.ts";
import { signIn, stack, useBrowser, userToken } from "./kit.ts";
import { useServerEverything } from "./server-everything.ts";

const everything = useServerEverything();

interface Slot {
  appId: string;
  name: string;
  set: boolean;
}

describe("personal tokens on My data", () => {
  const b = useBrowser(async (br) => {
    await br.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("sets a token (shown as set, never its value, absent from the DOM), then removes it; the API agrees", async () => {
    const { api, demo } = stack();
    const appName = `pat-${Date.now().toString(36)}`;
    const registered = (await apiCall(api, demo.keys.developer, "POST", "/v1/apps", {
      name: appName,
      description: "The MCP reference server, each user with their own token.",
      version: "1.0.0",
      mcp: { url: everything.url, auth: { type: "user_token", token: "developer-listing-token" } },
    })) as { id: string };
    await apiCall(api, demo.keys.admin, "POST", `/v1/admin/apps/${registered.id}/versions/1/approve`, {
      clearance: "internal",
    });
    const user = `pat-user-${Date.now().toString(36)}`;
    const token = await userToken(user);
    const slotOf = async () => {
      const body = (await apiCall(api, token, "GET", `/v1/users/${user}/personal-tokens`)) as {
        apps: Slot[];
      };
      return body.apps.find((a) => a.appId === registered.id);
    };
    expect(await slotOf()).toMatchObject({ name: appName, set: false });

    await signIn(b, "/console/data", token);
    const row = b.page.locator("#personal-tokens tr").filter({ hasText: appName });
    await expect.poll(() => row.locator(".token-unset").textContent()).toBe("not set");
    const field = b.page.getByLabel(`Personal token for ${appName}`);
    expect(await field.getAttribute("type")).toBe("password");

    const secret = `pat-secret-${Math.random().toString(36).slice(2)}`;
    await field.fill(secret);
    await row.getByRole("button", { name: "Set" }).click();
    await expect.poll(() => row.locator(".token-set").count()).toBe(1);
    expect(await row.locator(".token-set").textContent()).toMatch(
      /^set since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    // The value is nowhere in the page: not in its markup, nor in any field's live value.
    expect(await b.page.content()).not.toContain(secret);
    const values = await b.page.evaluate(() =>
      Array.from(
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ value: string }> } }
        ).document.querySelectorAll("input, textarea"),
        (i) => i.value,
      ),
    );
    expect(values).not.toContain(secret);
    expect(await slotOf()).toMatchObject({ set: true });
    expect(JSON.stringify(await slotOf())).not.toContain(secret);
    await checkPage(b, "my-data-personal-tokens");
    // checkPage draws 1200 px; the page as it is at 1280 px replaces it.
    await b.page.screenshot({ path: shotPath("my-data-personal-tokens"), fullPage: true });
    await b.page
      .locator("section[aria-labelledby=tokens-title]")
      .screenshot({ path: shotPath("personal-tokens") });

    await row.getByRole("button", { name: `Remove the token for ${appName}` }).click();
    await expect.poll(() => row.locator(".token-unset").textContent()).toBe("not set");
    expect(await slotOf()).toMatchObject({ set: false });
    expect(b.problems).toEqual([]);
  });
});
