/**
 * The audit type union is closed where it is written (every audit signature takes AuditType, so tsc
 * refuses a type not listed); here the list is checked the other way: each type it names is written
 * somewhere in src, so the union an admin reads (and filters by) holds no type nothing produces.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AUDIT_TYPES, type AuditType } from "../../src/audit-types.ts";

const SRC = join(import.meta.dirname, "../../src");
const text = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts") && f !== "audit-types.ts")
  .map((f) => readFileSync(join(SRC, f), "utf8"))
  .join("\n");

describe("the audit type union", () => {
  it("lists each type once", () => {
    expect(new Set(AUDIT_TYPES).size).toBe(AUDIT_TYPES.length);
  });

  it.each(AUDIT_TYPES)("%s is written somewhere in src", (type) => {
    expect(text).toContain(`"${type}"`);
  });

  it("refuses a type not listed (tsc)", () => {
    // @ts-expect-error — not an audit type: tsc (npm run typecheck) fails if this compiles
    const unknown: AuditType = "something_happened";
    expect(AUDIT_TYPES).not.toContain(unknown);
  });
});
