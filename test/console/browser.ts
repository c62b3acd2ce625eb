/**
 * Debian's Chromium driven by playwright-core (never a browser of Playwright's own), with the
 * checks every console page gets: no request leaves the console's origin, no CSP refusal or page
 * error, and axe-core (injected from npm) finds no serious or critical violation.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Where screenshots go: docs/console/ when asked (CONSOLE_SCREENSHOTS=docs), else the run's temp dir. */
let shots: string | null = null;
const shotsDir = () =>
  (shots ??=
    process.env.CONSOLE_SCREENSHOTS === "docs" ? "docs/console" : mkdtempSync(join(tmpdir(), "shots-")));

/** Where a screenshot of this name goes (the same folder as checkPage's). */
export const shotPath = (name: string) => join(shotsDir(), `${name}.png`);

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Problems seen so far: foreign requests, CSP refusals, page errors. */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh profile (its own --user-data-dir) and one page, watched for anything leaving `origin`. */
export async function openBrowser(origin: string): Promise<Browser> {
  // Checked here, where the browser is launched: the same project's typed-client and example tests
  // need no browser. A missing one is a failure that says what to do, never a silent pass.
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the console's browser tests need Debian's Chromium at ${CHROMIUM}: apt-get update && apt-get install -y --no-install-recommends chromium`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
  });
  const problems: string[] = [];
  const page = context.pages()[0] ?? (await context.newPage());
  context.on("request", (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== "data:") problems.push(`foreign request: ${r.url()}`);
  });
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface Doc {
  body: { scrollHeight: number };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * axe-core's serious and critical violations on the page as it is, one line each; on the parts
 * `include` selects only, when given (a page of thousands of nodes takes axe a minute whole).
 */
export async function seriousViolations(page: Page, include?: string[]): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(async (include) => {
    const axe = (
      globalThis as unknown as { axe: { run(context?: unknown): Promise<{ violations: unknown[] }> } }
    ).axe;
    return (await (include ? axe.run({ include: include.map((s) => [s]) }) : axe.run())).violations;
  }, include)) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/**
 * axe-core run in the page (by the driver, so the page's CSP need not allow it), the page's
 * screenshot taken, and the watched problems asserted empty.
 */
export async function checkPage(b: Browser, name: string, opts: { window?: boolean } = {}): Promise<void> {
  expect(await seriousViolations(b.page), `axe on ${name}`).toEqual([]);
  // The chat as a person sees it: the window, its input pinned at the bottom (a whole-page shot
  // would draw the pinned input over the middle of the transcript).
  if (opts.window) {
    await b.page.screenshot({ path: join(shotsDir(), `${name}.png`) });
    expect(b.problems, `problems on ${name}`).toEqual([]);
    return;
  }
  // The whole page down to 1,400 px: enough to read each page, small enough to keep in docs/.
  const height = await b.page.evaluate(
    () => (globalThis as unknown as { document: Doc }).document.body.scrollHeight,
  );
  const clip = { x: 0, y: 0, width: 1200, height: Math.min(height, 1400) };
  await b.page.screenshot({ path: join(shotsDir(), `${name}.png`), fullPage: true, clip });
  expect(b.problems, `problems on ${name}`).toEqual([]);
}
