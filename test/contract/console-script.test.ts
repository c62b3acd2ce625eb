/**
 * The console's served script parses. It is plain JavaScript in template strings (no build step),
 * so a stray backtick or an escape lost between String.raw and a plain template would only show up
 * in a browser; this checks it in Node (workerd forbids compiling code from a string).
 */
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { SCRIPT } from "../../src/console/script.ts";

describe("the console's served script", () => {
  it("is valid JavaScript", () => {
    expect(() => new Script(SCRIPT, { filename: "console.js" })).not.toThrow();
  });

  it("fails the check when it is not (the control)", () => {
    expect(() => new Script(`${SCRIPT}\n(function () {`, { filename: "console.js" })).toThrow(SyntaxError);
  });
});
