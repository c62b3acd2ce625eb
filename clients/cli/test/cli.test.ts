/**
 * The `lattice` CLI as a person runs it (issue #34): its own process, under the Node the project
 * carries, against the API under wrangler dev (the console project's stack). A tenant is created,
 * exported, changed in the file, diffed and imported back; a refused file is named by field and
 * changes nothing; wrong usage exits 2.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stack } from "../../../test/console/kit.ts";

const CLI = join(import.meta.dirname, "../src/cli.ts");
const dir = mkdtempSync(join(tmpdir(), "lattice-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Run = { code: number; stdout: string; stderr: string };
function lattice(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    // Only what the CLI is told: no key of the developer's shell leaks in, none is inherited.
    const clean = { PATH: process.env.PATH ?? "", LATTICE_URL: stack().api, ...env };
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: dir, env: clean, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const NOTE = {
  name: "notes.add",
  description: "Add a note to the user's notebook.",
  request: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  response: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
};

describe("lattice, the CLI", () => {
  it("creates a tenant, exports it, and imports the changed file back", async () => {
    const created = await lattice(["tenant", "create", "cli-test", "--json"], {
      LATTICE_OPERATOR_SECRET: stack().operatorSecret,
    });
    expect(created.code, created.stderr).toBe(0);
    const { adminKey } = JSON.parse(created.stdout) as { adminKey: string };
    const env = { LATTICE_ADMIN_KEY: adminKey };

    const exported = await lattice(["export", "--out", "tenant.json"], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/^wrote tenant\.json \(ETag "[0-9a-f]{32}"\)/);
    const doc = JSON.parse(readFileSync(join(dir, "tenant.json"), "utf8"));
    expect(doc).toMatchObject({ lattice: "tenant-config", version: 1, catalog: { entries: [] }, apps: [] });

    doc.catalog.entries.push(NOTE);
    doc.policy.roles.writer = { entries: ["notes.add"] };
    writeFileSync(join(dir, "edited.json"), JSON.stringify(doc, null, 2));
    const diff = await lattice(["diff", "edited.json"], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toBe(
      [
        "policy",
        '  + policy.roles.writer: {"entries":["notes.add"]}',
        "catalog",
        `  + catalog.entries[notes.add]: ${JSON.stringify(NOTE).slice(0, 99)}…`,
        "2 changes",
        "",
      ].join("\n"),
    );
    // Not at a terminal, an import asks for --yes and applies nothing without it.
    const unasked = await lattice(["import", "edited.json"], env);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain("pass --yes");
    expect((await lattice(["diff", "edited.json"], env)).stdout).toContain("2 changes");

    const imported = await lattice(["import", "edited.json", "--yes"], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/imported 2 changes \(ETag "[0-9a-f]{32}"\)\n$/);
    // The export is the file, with the defaults an entry left out filled in (the diff: no change).
    const after = await lattice(["export"], env);
    const file = JSON.parse(readFileSync(join(dir, "edited.json"), "utf8"));
    expect(JSON.parse(after.stdout)).toMatchObject(file);
    expect(JSON.parse(after.stdout).catalog.entries[0]).toMatchObject({
      irreversible: false,
      destinations: [],
    });
    expect((await lattice(["diff", "edited.json"], env)).stdout).toBe(
      "no changes: the tenant is as the document says\n",
    );

    // A bad field: refused with it named, exit 1, and nothing of the file applied (its valid role).
    doc.catalog.entries[0].name = "Not A Name";
    doc.policy.roles.reader = { entries: "*" };
    writeFileSync(join(dir, "bad.json"), JSON.stringify(doc));
    const refused = await lattice(["import", "bad.json", "--yes"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("request failed validation (400 invalid_request)");
    expect(refused.stderr).toContain(
      "  catalog.entries.0.name: an entry name looks like ride.quote or mail.send",
    );
    expect(JSON.parse((await lattice(["export"], env)).stdout)).toEqual(JSON.parse(after.stdout));
  });

  it("says what is wrong with the command line, with exit code 2, and what the API said with 1", async () => {
    const help = await lattice(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tenant create");
    expect((await lattice(["import", "--help"])).stdout).toContain("lattice import <file> [--yes]");
    const unknown = await lattice(["export", "--bogus"], { LATTICE_ADMIN_KEY: "x" });
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining("Unknown option '--bogus'")]);
    expect((await lattice(["frobnicate"])).code).toBe(2);
    const noKey = await lattice(["export"]);
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining("no admin key")]);
    const noFile = await lattice(["diff", "missing.json"], { LATTICE_ADMIN_KEY: "x" });
    expect([noFile.code, noFile.stderr]).toEqual([2, expect.stringContaining("no file missing.json")]);
    const badKey = await lattice(["export"], { LATTICE_ADMIN_KEY: "lk.nope" });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^lattice: .*\(401 unauthorized\)/);
  });
});
