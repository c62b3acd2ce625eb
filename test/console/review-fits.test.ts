/**
 * A functionality whose schemas already fit a catalog entry is bound to that entry, not given a
 * duplicate. A copy of the demo contacts app serves version 1 with `lookup` unbound: its card
 * offers "Bind to contacts.lookup" first, Propose second. Its version 2 adds `list`: the bind select
 * lists contacts.list first, under "Fits its schemas", not preselected (binding is the admin's
 * choice); the admin picks it and approving binds it. The catalog
 * gains no entry (control: its count before and after).
 */
import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage, shotPath } from "./browser.ts";
import { signIn, stack, useBrowser } from "./kit.ts";

interface AppView {
  id: string;
  serving: number | null;
  versions: Array<{ version: number; status: string; bindings: Record<string, string> }>;
}

describe("binding to the catalog entries a functionality fits", () => {
  const b = useBrowser(async (br) => {
    await br.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("offers the fitting entry first, and binding it on approval makes no new entry", async () => {
    const { api, apps, demo } = stack();
    const dev = (method: string, path: string, body?: unknown) =>
      apiCall(api, demo.keys.developer, method, path, body);
    const admin = (method: string, path: string, body?: unknown) =>
      apiCall(api, demo.keys.admin, method, path, body);
    const contacts = demoManifests(apps, "demo").find((m) => m.name === "contacts")!;
    const fn = (name: string) => contacts.functionalities.find((f) => f.name === name)!;
    // A name of this attempt's own: a retried test registers anew.
    const name = `phonebook-${Date.now().toString(36)}`;
    const registered = (await dev("POST", "/v1/apps", {
      ...contacts,
      name,
      functionalities: [fn("lookup")],
    })) as { id: string };
    // Approved with no binding: version 1 serves, lookup unbound.
    await admin("POST", `/v1/admin/apps/${registered.id}/versions/1/approve`, { clearance: "internal" });
    await dev("PUT", `/v1/apps/${registered.id}`, {
      ...contacts,
      name,
      version: "2.0.0",
      functionalities: [fn("lookup"), fn("list")],
    });
    const entryCount = async () =>
      ((await admin("GET", "/v1/admin/catalog")) as { entries: unknown[] }).entries.length;
    const before = await entryCount();

    await signIn(b, "/console/admin", demo.keys.admin);
    const requests: string[] = [];
    b.page.on("request", (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));

    // The serving version: lookup fits contacts.lookup; binding there is the first action.
    const serving = b.page.getByRole("article", { name: `${name} version 1 (serving)` });
    const lookup = serving.getByRole("article", { name: /^lookup\b/ });
    await lookup.waitFor();
    expect(await lookup.locator(".card-binding .hint").textContent()).toBe(
      "Its schemas fit contacts.lookup: bind it there rather than creating a duplicate entry.",
    );
    const propose = lookup.getByRole("button", { name: "Propose a new entry for lookup" });
    expect(await propose.getAttribute("class")).toBe("secondary");
    await lookup.screenshot({ path: shotPath("review-fits-serving") });
    requests.length = 0; // from here, one load of the page (the one after binding)
    await lookup.getByRole("button", { name: "Bind to contacts.lookup for lookup" }).click();
    await expect
      .poll(() => b.page.locator("#pending .done").textContent())
      .toBe(`Bound lookup of ${name} to contacts.lookup`);
    expect(requests).toContain(`PUT /v1/admin/apps/${registered.id}/versions/1/bindings`);

    // The pending version 2: list is new and fits contacts.list, first, but not chosen for the admin.
    const review = b.page.getByRole("article", { name: `${name} version 2 (2.0.0)` });
    await review.waitFor();
    const select = review.getByLabel("Bind list to");
    expect(await select.inputValue()).toBe("");
    expect(await select.getAttribute("aria-describedby")).toMatch(/-hint$/);
    // Each optgroup's label and option values (the test's tsconfig has no DOM types).
    type Opt = { label: string; value: string; querySelectorAll(s: string): Iterable<Opt> };
    const groups = await select.evaluate((node) =>
      Array.from((node as unknown as Opt).querySelectorAll("optgroup"), (g) => ({
        label: g.label,
        options: Array.from(g.querySelectorAll("option"), (o) => o.value),
      })),
    );
    expect(groups[0]).toEqual({ label: "Fits its schemas", options: ["contacts.list"] });
    expect(groups[1]!.label).toBe("Other entries");
    expect(groups[1]!.options).not.toContain("contacts.list");
    // Control: lookup keeps its previous binding, not a fit's guess.
    expect(await review.getByLabel("Bind lookup to").inputValue()).toBe("contacts.lookup");
    // One proposals call per version per load of the page (version 2 has two cards), not one per card.
    const proposalCalls = requests.filter((r) => r.endsWith(`/${registered.id}/versions/2/proposals`));
    expect(proposalCalls.length).toBe(1);
    await review.screenshot({ path: shotPath("review-fits") });
    await checkPage(b, "admin-review-fits");

    await select.selectOption("contacts.list"); // the admin's choice, from the fitting group
    await review.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => b.page.locator("#pending .done").textContent())
      .toBe(`Approved version 2 of ${name}`);
    const listed = (await admin("GET", "/v1/admin/apps")) as { apps: AppView[] };
    const app = listed.apps.find((a) => a.id === registered.id)!;
    expect(app.serving).toBe(2);
    expect(app.versions[1]!.bindings).toEqual({ lookup: "contacts.lookup", list: "contacts.list" });
    expect(requests.filter((r) => r.startsWith("POST /v1/admin/catalog"))).toEqual([]);
    expect(await entryCount()).toBe(before);
    expect(b.problems).toEqual([]);
    // A second contacts provider would change other tests' plans: it leaves the planners' view.
    await admin("POST", `/v1/admin/apps/${registered.id}/disable`);
  });
});
