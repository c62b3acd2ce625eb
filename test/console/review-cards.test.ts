/**
 * Review cards (issue #33) on a real MCP server's review: server-everything from npm, imported by
 * the API under wrangler dev. Version 2 drops one tool, adds another and changes a third's
 * declarations; its review is one card per tool, readable 1280 px wide. Then the admin gives an
 * unbound functionality of the serving version a catalog entry of its own words and binds it,
 * with no call from the developer and no new version.
 */
import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage, shotPath } from "./browser.ts";
import { signIn, stack, useBrowser } from "./kit.ts";
import { useServerEverything } from "./server-everything.ts";

interface Fn {
  name: string;
  description: string;
  tool?: { name: string };
}
interface Version {
  version: number;
  status: string;
  bindings: Record<string, string>;
  manifest: { functionalities: Fn[] };
}
interface App {
  id: string;
  serving: number | null;
  versions: Version[];
}

const everything = useServerEverything();

describe("review cards of a 13-tool MCP server", () => {
  const b = useBrowser(async (br) => {
    await br.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("one card per tool, what changed before/after, unchanged folded, no horizontal scroll at 1280 px; then an admin creates an entry from a proposal and binds it", async () => {
    const { api, demo } = stack();
    const dev = (method: string, path: string, body?: unknown) =>
      apiCall(api, demo.keys.developer, method, path, body);
    const admin = (method: string, path: string, body?: unknown) =>
      apiCall(api, demo.keys.admin, method, path, body);
    // A name of this attempt's own: a retried test registers anew.
    const appName = `everything-${Date.now().toString(36)}`;
    const base = { name: appName, description: "The MCP reference server.", version: "1.0.0" };
    // Version 1 leaves get-env out; version 2 takes it, leaves echo out, and declares get-sum's category.
    const registered = (await dev("POST", "/v1/apps", {
      ...base,
      mcp: { url: everything.url, exclude: ["get-env"] },
    })) as { id: string; app: App };
    const v1 = registered.app.versions[0]!;
    const tools = v1.manifest.functionalities.length + 1;
    expect(tools).toBe(13);
    await admin("POST", `/v1/admin/apps/${registered.id}/versions/1/approve`, { clearance: "internal" });
    await dev("PUT", `/v1/apps/${registered.id}`, {
      ...base,
      version: "2.0.0",
      mcp: { url: everything.url, exclude: ["echo"], tools: { "get-sum": { category: "math.sum" } } },
    });

    await signIn(b, "/console/admin", demo.keys.admin);
    const review = b.page.getByRole("article", { name: `${appName} version 2 (2.0.0)` });
    await review.waitFor();
    const cards = review.locator(".fn-card");
    expect(await cards.count()).toBe(13);
    const status = async (name: string) =>
      (await review.getByRole("article", { name: new RegExp(`^${name}\\b`) }).getAttribute("class")) ?? "";
    expect(await status("get-env")).toContain("status-new");
    expect(await status("echo")).toContain("status-removed");
    expect(await status("get-sum")).toContain("status-changed");
    expect(await status("get-tiny-image")).toContain("status-unchanged");
    // The changed field, before and after; the unchanged ones folded.
    const sum = review.getByRole("article", { name: /^get-sum\b/ });
    expect(await sum.locator(".card-change h5").allTextContents()).toEqual(["category"]);
    expect(await sum.locator(".card-change .before").textContent()).toBe("Approved(absent)");
    expect(await sum.locator(".card-change .after").textContent()).toBe("This versionmath.sum");
    expect(await sum.locator("details.card-same").getAttribute("open")).toBeNull();
    // Irreversibility as the server computed it from the annotations: echo says readOnlyHint.
    const chipsOf = (name: string) =>
      review
        .getByRole("article", { name: new RegExp(`^${name}\\b`) })
        .locator(".chip")
        .allTextContents();
    expect(await chipsOf("toggle-simulated-logging")).toContain(
      "irreversible (read off its MCP annotations)",
    );
    expect(await chipsOf("get-sum")).toContain("reversible (read off its MCP annotations)");
    // The app's description is boxed as its words, as text.
    const desc = sum
      .locator("details.card-same .card-field")
      .filter({ has: b.page.locator("h5", { hasText: /^description$/ }) });
    expect(await desc.locator("figcaption").textContent()).toBe("the app's words");

    // A 13-tool server's review is readable 1280 px wide: nothing scrolls sideways.
    const widths = await b.page.evaluate(() => {
      const d = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }
      ).document.documentElement;
      return { scroll: d.scrollWidth, client: d.clientWidth };
    });
    expect(widths.client).toBeLessThanOrEqual(1280);
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await review.screenshot({ path: shotPath("review-cards") });
    await sum.locator("details.card-same summary").click();
    await sum.screenshot({ path: shotPath("review-card-changed") });
    await checkPage(b, "admin-review-cards");

    // The serving version 1: its functionalities are unbound. The admin proposes an entry for get-sum.
    const serving = b.page.getByRole("article", { name: `${appName} version 1 (serving)` });
    const card = serving.getByRole("article", { name: /^get-sum\b/ });
    const requests: string[] = [];
    b.page.on("request", (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await card.getByRole("button", { name: "Propose entry for get-sum" }).click();
    const description = card.getByLabel(/^Description/);
    await description.waitFor();
    // The app's words are not offered: the admin starts from an empty description, and must write one.
    expect(await description.inputValue()).toBe("");
    await card.getByRole("button", { name: "Create entry and bind" }).click();
    await expect
      .poll(() => card.locator(".propose-status").textContent())
      .toBe("Write what it does, in your words.");
    const name = await card.getByLabel("Entry name").inputValue();
    await card.screenshot({ path: shotPath("review-propose-entry") });
    const words = "Adds two numbers and gives their sum.";
    await description.fill(words);
    await card.getByRole("button", { name: "Create entry and bind" }).click();
    await expect
      .poll(() => b.page.locator("#pending .done").textContent())
      .toBe(`Bound get-sum of ${appName} to ${name}`);
    expect(requests).toContain("POST /v1/admin/catalog/entries");
    expect(requests).toContain(`PUT /v1/admin/apps/${registered.id}/versions/1/bindings`);

    const entry = (await admin("GET", `/v1/admin/catalog/entries/${encodeURIComponent(name)}`)) as {
      entry: { description: string; boundBy: Array<{ app: string; functionality: string }> };
    };
    const appWords = v1.manifest.functionalities.find((f) => f.name === "get-sum")!.description;
    expect(entry.entry.description).toBe(words);
    expect(entry.entry.description).not.toBe(appWords);
    expect(entry.entry.boundBy).toEqual([{ app: appName, functionality: "get-sum" }]);
    const listed = (await admin("GET", "/v1/admin/apps")) as { apps: App[] };
    const app = listed.apps.find((a) => a.id === registered.id)!;
    // No new version: version 1 serves, bound; version 2 still waits for review.
    expect(app.versions.map((v) => [v.version, v.status])).toEqual([
      [1, "approved"],
      [2, "pending"],
    ]);
    expect(app.versions[0]!.bindings).toEqual({ "get-sum": name });
    // The bound card left the unbound section.
    await expect.poll(() => serving.getByRole("article", { name: /^get-sum\b/ }).count()).toBe(0);
    await b.page.screenshot({ path: shotPath("review-page-1280"), fullPage: true });
    expect(b.problems).toEqual([]);
  });
});
