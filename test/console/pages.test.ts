import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage, seriousViolations } from "./browser.ts";
import { signIn, stack, useBrowser, userToken } from "./kit.ts";

interface Doc {
  activeElement: { id: string } | null;
}

interface QueryView {
  id: string;
  status: string;
}

/** A query asked as the chat product's browser would, waited for until it settles. */
async function asked(token: string, text: string): Promise<{ sid: string; qid: string }> {
  const { api } = stack();
  const session = (await apiCall(api, token, "POST", "/v1/sessions", { userId: "sam" })) as { id: string };
  const query = (await apiCall(api, token, "POST", `/v1/sessions/${session.id}/queries`, {
    text,
  })) as QueryView;
  // Up to 45 s: two shared cores running wrangler, Chromium and other suites take their time.
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const view = (await apiCall(
      api,
      token,
      "GET",
      `/v1/sessions/${session.id}/queries/${query.id}`,
    )) as QueryView;
    if (view.status === "completed") return { sid: session.id, qid: query.id };
    expect(["planning", "running"]).toContain(view.status);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the query did not complete within 45 s");
}

describe("the other console pages in the browser", () => {
  let token: string;
  const b = useBrowser(async () => {
    token = await userToken("sam");
  });

  it("signs in by form, with a hint of what belongs there", async () => {
    await b.page.goto(`${stack().api}/console`);
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.reload();
    // Keyboard only: the skip link first, the sign-in field takes focus on its own.
    const focused = () =>
      b.page.evaluate(() => (globalThis as unknown as { document: Doc }).document.activeElement?.id);
    expect(await focused()).toBe("credential");
    await checkPage(b, "signin");
    await b.page.keyboard.type(token);
    await b.page.keyboard.press("Enter");
    await b.page.locator("#content").waitFor({ state: "visible" });
    expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
  });

  it("has checks that can fail: axe flags an unlabeled field, the CSP and the watch a request to another origin", async () => {
    await signIn(b, "/console", token);
    await b.page.evaluate(() => {
      const d = (
        globalThis as unknown as {
          document: { createElement(t: string): unknown; body: { appendChild(n: unknown): void } };
        }
      ).document;
      d.body.appendChild(d.createElement("input"));
    });
    expect((await seriousViolations(b.page)).join("\n")).toMatch(/^label \(critical\)/m);
    await b.page.evaluate(() => fetch("http://192.0.2.1/").catch(() => {}));
    // The CSP (connect-src 'self') refuses it before it leaves; the watch reports the refusal.
    await expect.poll(() => b.problems.join("\n")).toMatch(/^csp: .*192\.0\.2\.1/m);
    b.problems.length = 0;
    await b.page.reload();
  });

  it("has a watch that reports a request that does leave: a page served without the CSP loads from another origin", async () => {
    // The route stands in for a page whose CSP failed to hold: its image goes to another origin.
    const path = "/console/__foreign-control";
    await b.page.route(`**${path}`, (r) =>
      r.fulfill({
        contentType: "text/html",
        body: '<!doctype html><img src="http://192.0.2.1/pixel.png" alt="">',
      }),
    );
    try {
      await b.page.goto(`${stack().api}${path}`);
      await expect
        .poll(() => b.problems.join("\n"))
        .toMatch(/^foreign request: http:\/\/192\.0\.2\.1\/pixel\.png/m);
    } finally {
      b.problems.length = 0;
      await b.page.unroute(`**${path}`);
    }
  });

  it("takes a token handed over in the URL fragment into the tab once confirmed, and drops it from the URL", async () => {
    await b.page.goto(`${stack().api}/console`);
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.goto(`${stack().api}/console/data#token=${token}`);
    // A link's token is kept only once the person confirms its user (test/console/link-signin.test.ts).
    await b.page.getByRole("button", { name: "Continue as sam" }).click();
    await b.page.locator("#content").waitFor({ state: "visible" });
    expect(await b.page.locator("#who").textContent()).toBe("Signed in as sam");
    expect(b.page.url()).toBe(`${stack().api}/console/data`);
  });

  it("shows the verified plan with each value's label and the rules met, beside the trace", async () => {
    const { sid, qid } = await asked(token, "Compare rides from Home to Airport");
    await signIn(b, `/console/sessions/${sid}/queries/${qid}`, token);
    const steps = b.page.locator("#steps > li");
    await expect.poll(() => steps.count()).toBe(2);
    const first = await steps.first().textContent();
    expect(first).toContain("steps[0]: ride.quote → quotes");
    expect(first).toContain("runs on every app that serves it");
    expect(first).toContain(
      "Label of each app's answer: cheapcab public / untrusted; swiftride public / untrusted",
    );
    expect(first).toContain('from the literal "Home"');
    expect(first).toContain(
      "confidentiality: every argument's data is within what the serving app is cleared for",
    );
    expect(await steps.nth(1).textContent()).toContain("display: within the display policy's cap");
    expect(await b.page.locator("#trace li").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("query_finished")]),
    );
    await checkPage(b, "plan");
  });

  it("lists the user's saved data, shows a value and erases one", async () => {
    await signIn(b, "/console/data", token);
    await b.page.getByRole("button", { name: "Show quotes" }).first().click();
    const row = b.page.getByRole("row", { name: /^quotes / }).first();
    await expect.poll(() => row.locator("pre").textContent()).toContain("fare");
    expect(await b.page.locator("#grants").textContent()).toContain("No standing permissions");
    await checkPage(b, "my-data");
    const before = await b.page.getByRole("button", { name: "Erase quotes" }).count();
    // Erasing asks first: dismissed, nothing goes; accepted, the row goes and focus is on the heading.
    b.page.once("dialog", (d) => d.dismiss());
    await b.page.getByRole("button", { name: "Erase quotes" }).first().click();
    await new Promise((r) => setTimeout(r, 300));
    expect(await b.page.getByRole("button", { name: "Erase quotes" }).count()).toBe(before);
    b.page.once("dialog", (d) => d.accept());
    await b.page.getByRole("button", { name: "Erase quotes" }).first().click();
    await expect.poll(() => b.page.getByRole("button", { name: "Erase quotes" }).count()).toBe(before - 1);
    expect(
      await b.page.evaluate(() => (globalThis as unknown as { document: Doc }).document.activeElement?.id),
    ).toBe("");
    await expect.poll(() => b.page.locator("main h1:focus").count()).toBe(1);
  });

  it("revokes a standing permission with its button (the grants answer stubbed: no demo query makes one)", async () => {
    // Only a permanent answer to a data_share or app choice makes a grant, and none of the scripted
    // demo's queries asks one; the page's side of revoking is what is tested here.
    const grant = {
      id: "grt_1",
      kind: "data_share",
      subject: "data_share:contacts->calendar",
      choice: null,
      description: "Share contacts data with calendar",
      createdAt: "2026-12-01T00:00:00.000Z",
    };
    let grants = [grant];
    const deleted: string[] = [];
    await b.page.route("**/v1/users/sam/grants**", async (route) => {
      const request = route.request();
      if (request.method() === "DELETE") {
        deleted.push(new URL(request.url()).pathname);
        // The first attempt fails: the page says so rather than leaving the row as if nothing happened.
        if (deleted.length === 1) return route.fulfill({ status: 500, body: "" });
        grants = [];
        return route.fulfill({ json: { revoked: true } });
      }
      expect(request.headers().authorization).toBe(`Bearer ${token}`);
      return route.fulfill({ json: { grants } });
    });
    try {
      await signIn(b, "/console/data", token);
      const revoke = b.page.getByRole("button", { name: "Revoke: Share contacts data with calendar" });
      await revoke.click();
      await expect
        .poll(() => b.page.locator("#grants [role=alert]").textContent())
        .toBe("Not revoked: request failed (500)");
      await revoke.click();
      await expect.poll(() => b.page.locator("#grants").textContent()).toContain("No standing permissions");
      expect(deleted).toEqual(["/v1/users/sam/grants/grt_1", "/v1/users/sam/grants/grt_1"]);
      await expect.poll(() => b.page.locator("main h1:focus").count()).toBe(1);
    } finally {
      await b.page.unroute("**/v1/users/sam/grants**");
    }
  });

  it("shows a developer their apps with review state, and rotates a signing secret once", async () => {
    await signIn(b, "/console/developer", stack().demo.keys.developer);
    const mail = b.page.getByRole("article", { name: "mail" });
    await mail.waitFor();
    expect(await mail.getByRole("row").nth(1).textContent()).toContain("approved");
    await checkPage(b, "developer");
    await mail.getByRole("button", { name: "Rotate the signing secret of mail" }).click();
    const secret = mail.locator(".secret");
    await expect.poll(() => secret.textContent()).toContain("shown once");
    expect(await secret.locator("pre").textContent()).toMatch(/\S{20,}/);
    // Not read out by a live region: focus moves to it instead.
    expect(
      await secret.evaluate((n) =>
        (n as unknown as { closest(s: string): unknown }).closest("[aria-live],[role=status],[role=alert]"),
      ),
    ).toBeNull();
    await expect.poll(() => secret.locator("p:focus").count()).toBe(1);
    // An immediate rotation (the old secret stops at once) asks first; dismissed, nothing is sent.
    const rotations: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === "POST" && r.url().endsWith("/secret")) rotations.push(r.url());
    };
    b.page.on("request", onRequest);
    let asked = "";
    b.page.once("dialog", (d) => {
      asked = d.message();
      return d.dismiss();
    });
    await mail.getByLabel(/^Immediately/).check();
    await mail.getByRole("button", { name: "Rotate the signing secret of mail" }).click();
    await expect.poll(() => asked).toMatch(/immediately\?/);
    await new Promise((r) => setTimeout(r, 300));
    b.page.off("request", onRequest);
    expect(rotations).toEqual([]);
  });

  it("shows the catalog and the audit log, filtered by type", async () => {
    const admin = stack().demo.keys.admin;
    await signIn(b, "/console/admin/catalog", admin);
    await b.page.getByRole("row", { name: /^ride\.book / }).waitFor();
    await checkPage(b, "admin-catalog");
    await signIn(b, "/console/admin/audit", admin);
    await b.page.locator("#audit table").waitFor();
    // Newest first from the API's order=desc: the top row is the tenant's latest event (not seq 1's page).
    const latest = (await apiCall(stack().api, admin, "GET", "/v1/admin/audit?order=desc&limit=1")) as {
      events: Array<{ seq: number }>;
    };
    const top = Number(await b.page.locator("#audit tbody tr td").first().textContent());
    expect(top).toBeGreaterThanOrEqual(latest.events[0]!.seq);
    await b.page.getByLabel("Event type contains").fill("policy_updated");
    await b.page.getByRole("button", { name: "Filter" }).click();
    // The seed wrote the policy at least once; every other type is filtered out.
    await expect
      .poll(async () => new Set(await b.page.locator("#audit tbody th").allTextContents()))
      .toEqual(new Set(["policy_updated"]));
    expect(await b.page.locator("#audit-count").textContent()).toMatch(/^[1-9]\d* event/);
    await checkPage(b, "admin-audit");
  });
});
