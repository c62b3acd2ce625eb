import { describe, expect, it } from "vitest";
import { API_REFERENCE_STYLES } from "../../src/console/api-reference/styles.ts";
import { api } from "./helpers.ts";

const HEADERS = [
  "Content-Security-Policy",
  "X-Frame-Options",
  "X-Content-Type-Options",
  "Referrer-Policy",
  "Cross-Origin-Opener-Policy",
  "Cache-Control",
];

/** The API reference as the Worker serves it (its rendering: test/contract/api-reference.test.ts). */
describe("GET /docs", () => {
  it("is served with the console's headers, its CSP first", async () => {
    const docs = await api("GET", "/docs");
    const shell = await api("GET", "/console");
    expect(docs.status).toBe(200);
    expect(docs.response.headers.get("Content-Type")).toMatch(/^text\/html/);
    const csp = docs.response.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    for (const name of HEADERS) {
      expect(docs.response.headers.get(name), name).toBe(shell.response.headers.get(name));
    }
    const css = await api("GET", "/console/static/api-reference.css");
    expect(css.response.headers.get("Content-Type")).toMatch(/^text\/css/);
    expect(String(css.body)).toBe(API_REFERENCE_STYLES);
  });

  it("renders every operation of the document /openapi.json serves", async () => {
    const spec = (await api("GET", "/openapi.json")).body as { paths: Record<string, object> };
    const methods = new Set(["get", "post", "put", "patch", "delete"]);
    const count = Object.values(spec.paths).reduce(
      (n, item) => n + Object.keys(item).filter((m) => methods.has(m)).length,
      0,
    );
    expect(count).toBeGreaterThan(40);
    const html = String((await api("GET", "/docs")).body);
    expect(html.match(/<article class="op" /g)).toHaveLength(count);
    expect(html).toContain(`${count} operations, rendered from`);
    // The served document's own description and schemas, not another's.
    expect(html).toContain("plan-first IFC");
    expect(html).toContain('id="schema-CatalogEntry"');
  });
});
