import { describe, expect, it } from "vitest";
import { SCRIPT } from "../../src/console/script.gen.ts";
import { api } from "./helpers.ts";

const PAGES = [
  "/console",
  "/console/sessions/ses_0123456789abcdef0123456789abcdef",
  "/console/sessions/ses_0123456789abcdef0123456789abcdef/consents/con_1",
  "/console/sessions/ses_0123456789abcdef0123456789abcdef/queries/q_1",
  "/console/data",
  "/console/admin",
  "/console/admin/catalog",
  "/console/admin/policy",
  "/console/admin/audit",
  "/console/developer",
];

describe("the console's pages (the browser tests drive them in Chromium: test/console)", () => {
  it("are shells with strict headers: script and style from this origin only, never framed or cached", async () => {
    for (const path of PAGES) {
      const { status, body, response } = await api("GET", path);
      expect(status, path).toBe(200);
      expect(response.headers.get("Content-Type"), path).toMatch(/^text\/html/);
      const csp = response.headers.get("Content-Security-Policy") ?? "";
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(response.headers.get("X-Frame-Options"), path).toBe("DENY");
      expect(response.headers.get("Cache-Control"), path).toBe("no-store");
      const html = String(body);
      // No inline script: the one script is the served file.
      expect(html.match(/<script[^>]*>/g), path).toEqual([
        '<script src="/console/static/console.js" defer="">',
      ]);
      expect(html, path).not.toMatch(/l[ku]\.[A-Za-z0-9_-]{8,}/);
    }
  });

  it("serves its script and stylesheet with their types; ids outside the patterns are not pages", async () => {
    const js = await api("GET", "/console/static/console.js");
    expect(js.response.headers.get("Content-Type")).toMatch(/^text\/javascript/);
    // Exactly the script test/contract/console-script.test.ts parses in Node.
    expect(String(js.body)).toBe(SCRIPT);
    const css = await api("GET", "/console/static/console.css");
    expect(css.response.headers.get("Content-Type")).toMatch(/^text\/css/);
    expect((await api("GET", "/console/sessions/not-a-session")).status).toBe(404);
    expect((await api("GET", "/console/sessions/ses_0123/consents/%3Cscript%3E")).status).toBe(404);
  });
});
