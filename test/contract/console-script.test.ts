/**
 * The console's served script: the committed bundle (src/console/script.gen.ts) is what esbuild
 * builds from the browser modules now, so an edit without `npm run console:build` fails here rather
 * than serving stale code; and it parses (workerd forbids compiling code from a string).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { bundleConsole, consoleModule } from "../../scripts/console-bundle.ts";
import { SCRIPT } from "../../src/console/script.gen.ts";

const committed = readFileSync(join(import.meta.dirname, "../../src/console/script.gen.ts"), "utf8");

describe("the console's served script", () => {
  it("is the bundle of the browser modules as they are (else: npm run console:build)", () => {
    expect(
      committed === consoleModule(bundleConsole()),
      "src/console/script.gen.ts is stale: npm run console:build",
    ).toBe(true);
  });

  it("fails the staleness check when a module changed (the control)", () => {
    expect(committed === consoleModule(`${bundleConsole()}\n// an edit`)).toBe(false);
  });

  it("keeps the text link-signin.test.ts's control patches (a bundler rename would make the control miss)", () => {
    expect(SCRIPT).toContain("function askAboutLink(token) {");
    expect(SCRIPT).toMatch(/let link = null;[\s\S]*function answerLink\(accept\) \{\s*const token = link;/);
  });

  it("is valid JavaScript", () => {
    expect(() => new Script(SCRIPT, { filename: "console.js" })).not.toThrow();
  });

  it("fails the check when it is not (the control)", () => {
    expect(() => new Script(`${SCRIPT}\n(function () {`, { filename: "console.js" })).toThrow(SyntaxError);
  });
});
