/**
 * docs/ARCHITECTURE.md's tree names every folder of the repository and only those, so a reader's map
 * stays the territory: a folder added, moved or removed without the tree fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
// Installed or generated, never written by hand (see .gitignore); hidden folders are skipped too.
// dist: @lattice/client's build output, written by `npm pack` (and test/contract/client-package).
const SKIPPED = new Set(["node_modules", "coverage", "dist"]);

/** Every folder under `dir` that holds a file somewhere beneath it, as `a/b/`. */
function folders(dir: string, prefix = ""): { found: string[]; hasFile: boolean } {
  const found: string[] = [];
  let hasFile = false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
    if (!entry.isDirectory()) {
      hasFile = true;
      continue;
    }
    const path = `${prefix}${entry.name}/`;
    const below = folders(join(dir, entry.name), path);
    if (below.hasFile) found.push(path, ...below.found);
    hasFile ||= below.hasFile;
  }
  return { found, hasFile };
}

/** The folders the tree lists: an indented `name/` opens each line, two spaces per level. */
function treeFolders(markdown: string): string[] {
  const section = markdown.split("## The tree")[1]?.split("```text\n")[1]?.split("```")[0];
  if (section === undefined) throw new Error("docs/ARCHITECTURE.md has no tree under '## The tree'");
  const path: string[] = [];
  const listed: string[] = [];
  for (const line of section.split("\n")) {
    const m = /^( *)([^\s/]+)\/(?:\s|$)/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 2;
    if (!Number.isInteger(depth) || depth > path.length) throw new Error(`tree line out of place: ${line}`);
    path.length = depth;
    path.push(m[2]!);
    listed.push(`${path.join("/")}/`);
  }
  return listed;
}

describe("docs/ARCHITECTURE.md's tree", () => {
  it("reads nested folders from indentation", () => {
    const doc = "## The tree\n\n```text\nsrc/  a\n  apps/  b\n    x/\n  llm/  c\ntest/  d\n```\n";
    expect(treeFolders(doc)).toEqual(["src/", "src/apps/", "src/apps/x/", "src/llm/", "test/"]);
    expect(() => treeFolders("## The tree\n\n```text\nsrc/\n    deep/\n```\n")).toThrow(/out of place/);
  });

  it("lists every folder of the repository and only those", () => {
    const listed = treeFolders(readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8"));
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual(folders(ROOT).found.sort());
  });
});
