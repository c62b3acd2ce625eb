import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seriousViolations, shotPath } from "./browser.ts";
import { stack, useBrowser } from "./kit.ts";

/**
 * The API reference (/docs) in Chromium under the console's CSP: every operation drawn, nothing
 * refused by the CSP (each `securitypolicyviolation` is recorded from before the page's first
 * byte), no serious axe finding on its parts, at a desktop's width and a phone's, and its filter.
 */

interface Win {
  violations: string[];
  document: {
    addEventListener(type: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void;
  };
}

async function openDocs(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${stack().api}/docs`);
  await page.locator("#filter").waitFor({ state: "visible" });
}

interface Styled {
  getComputedStyle(el: unknown): { color: string };
}

interface Node {
  textContent: string;
}

interface Doc {
  title: string;
  createElement(tag: string): Node;
  body: { append(n: Node): void };
  head: { append(n: Node): void };
}

const violations = (page: Page) => page.evaluate(() => (globalThis as unknown as Win).violations);

async function operationCount(): Promise<number> {
  const spec = (await (await fetch(`${stack().api}/openapi.json`)).json()) as {
    paths: Record<string, object>;
  };
  const methods = new Set(["get", "post", "put", "patch", "delete"]);
  return Object.values(spec.paths).reduce(
    (n, item) => n + Object.keys(item).filter((m) => methods.has(m)).length,
    0,
  );
}

describe("the API reference in the browser", () => {
  const b = useBrowser(async (b) => {
    await b.page.addInitScript(() => {
      const w = globalThis as unknown as Win;
      w.violations = [];
      w.document.addEventListener("securitypolicyviolation", (e) =>
        w.violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
  });

  for (const width of [1280, 390]) {
    it(`draws every operation with no CSP refusal, at ${width} px wide`, async () => {
      await openDocs(b.page, width);
      expect(await b.page.locator("article.op").count()).toBe(await operationCount());
      // Its stylesheet applied (a served file: an inline one would be refused).
      const method = b.page.locator("#post-v1-admin-catalog-entries .method");
      const color = await method.evaluate(
        (el) => (globalThis as unknown as Styled).getComputedStyle(el).color,
      );
      expect(color).toBe("rgb(255, 255, 255)");
      const op = b.page.locator("#post-v1-admin-catalog-entries");
      // Its anchor (the contents' link) brings its head to the top.
      await b.page.evaluate(() => {
        (globalThis as unknown as { location: { hash: string } }).location.hash =
          "#post-v1-admin-catalog-entries";
      });
      // biome-ignore lint/performance/useDomNodeTextContent: the text as drawn (CSS case, folds shut).
      const text = (await op.innerText()).replace(/\s+/g, " ");
      expect(text).toContain("name string REQUIRED");
      expect(text).toContain("Fields of OutputLabel");
      await b.page.screenshot({ path: shotPath(`api-reference-${width}`) });
      await b.page.screenshot({ path: shotPath(`api-reference-op-${width}`) });
      // The error shape unfolds on a click, with its closed codes.
      await op.locator("details.error-shape > summary").click();
      // biome-ignore lint/performance/useDomNodeTextContent: a folded block's text is not drawn.
      expect(await op.locator("details.error-shape").innerText()).toContain("precondition_failed");
      expect(await violations(b.page)).toEqual([]);
      expect(b.problems).toEqual([]);
      // axe on the page's kinds of part (the whole page, ~25,000 nodes, takes axe a minute): its
      // header, contents, conventions, one operation of each shape, and a schema definition.
      const parts = ["header.top", "nav.toc", ".intro", "#get-healthz", "#post-v1-admin-catalog-entries"];
      expect(await seriousViolations(b.page, [...parts, "#schema-ErrorCode"])).toEqual([]);
    });
  }

  it("filters operations and their contents entries by every word typed", async () => {
    await openDocs(b.page, 1280);
    await b.page.locator("#filter").fill("catalog entries");
    await expect.poll(() => b.page.locator("#filter-count").textContent()).toMatch(/^5 of \d+ operations$/);
    expect(await b.page.locator("article.op:visible").count()).toBe(5);
    expect(await b.page.locator(".toc-ops li:visible").count()).toBe(5);
    // Groups with nothing left go: only Admin remains, in the contents and on the page.
    expect(await b.page.locator("section.tag:visible h2").allTextContents()).toEqual(["Admin"]);
    await b.page.locator("#filter").fill("");
    expect(await b.page.locator("article.op:visible").count()).toBe(await operationCount());
    expect(await violations(b.page)).toEqual([]);
  });

  it("control: the watch records what the CSP refuses, an inline script and an inline style", async () => {
    await openDocs(b.page, 1280);
    await b.page.evaluate(() => {
      const d = (globalThis as unknown as { document: Doc }).document;
      const script = d.createElement("script");
      script.textContent = "document.title = 'ran'";
      d.body.append(script);
      const style = d.createElement("style");
      style.textContent = "body { background: red }";
      d.head.append(style);
    });
    await expect.poll(() => violations(b.page)).toHaveLength(2);
    expect((await violations(b.page)).join("\n")).toMatch(/^script-src-elem inline$/m);
    expect(await b.page.title()).not.toBe("ran");
    await expect.poll(() => b.problems.join("\n")).toMatch(/^csp: /m);
    b.problems.length = 0;
  });
});
