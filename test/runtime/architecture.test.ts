/**
 * The layers (docs/ARCHITECTURE.md), checked on the source: no import cycle in src/, the pure cores
 * import nothing of the Workers runtime, the objects, the Worker or the model client, and no stored
 * JSON is cast into a type.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/gs;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return d.name.endsWith(".ts") && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = new Map(sources(SRC).map((path) => [relative(ROOT, path), readFileSync(path, "utf8")]));

/** Each file's imports: relative ones resolved to repo paths, packages by name. */
function importsOf(file: string): string[] {
  return [...files.get(file)!.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    return spec.startsWith(".") ? normalize(join(dirname(file), spec)) : spec;
  });
}

function cycles(): string[][] {
  const graph = new Map([...files.keys()].map((f) => [f, importsOf(f).filter((i) => files.has(i))]));
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe("architecture", () => {
  it("finds the files it checks", () => {
    expect(files.size).toBeGreaterThan(50);
    expect([...files.keys()]).toContain("src/runtime/interpreter.ts");
  });

  it("has no import cycle in src/", () => {
    expect(cycles()).toEqual([]);
  });

  it("keeps src/policy and src/runtime pure", () => {
    const allowed = (layer: string, target: string) => {
      if (!target.startsWith("src/")) return ["zod", "@cfworker/json-schema", "unhomoglyph"].includes(target);
      if (layer === "policy") return target.startsWith("src/policy/");
      return [
        "src/policy/",
        "src/runtime/",
        "src/apps/",
        "src/contracts.ts",
        "src/result.ts",
        "src/decode.ts",
        "src/audit-types.ts",
      ].some((p) => target.startsWith(p));
    };
    const offending = [...files.keys()]
      .filter((f) => f.startsWith("src/policy/") || f.startsWith("src/runtime/"))
      .flatMap((f) => {
        const layer = f.startsWith("src/policy/") ? "policy" : "runtime";
        return importsOf(f)
          .filter((target) => !allowed(layer, target))
          .map((target) => `${f} -> ${target}`);
      });
    expect(offending).toEqual([]);
  });

  it("lets only the Worker reach into objects from outside, and never the objects into the Worker", () => {
    const offending = [...files.keys()].flatMap((f) =>
      importsOf(f)
        .filter(
          (t) =>
            (f.startsWith("src/objects/") && t.startsWith("src/worker/")) ||
            (!f.startsWith("src/worker/") && !f.startsWith("src/objects/") && t.startsWith("src/objects/")),
        )
        .map((t) => `${f} -> ${t}`),
    );
    expect(offending).toEqual([]);
  });

  it("casts no parsed JSON to a type", () => {
    const casts = [...files].flatMap(([f, text]) =>
      [...text.matchAll(/(?:JSON\.parse|decode)\([^;]*?\)\s+as\s+(?!unknown\b)\w+/g)].map(
        (m) => `${f}: ${m[0]}`,
      ),
    );
    expect(casts).toEqual([]);
  });
});
