/**
 * @lattice/client as people install it: `npm pack` (its prepack builds dist/), installed from the
 * tarball into a scratch project outside the repo, then used by plain Node (no bundler, no
 * TypeScript) against a stand-in API, and its types checked by `tsc` in strict mode. Offline against
 * npm's cache when it has openapi-fetch's metadata; else npm fetches it once (--prefer-offline).
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/client-package");
// The child npm (and the prepack's `node build.ts`) run on this Node, not an older one on PATH.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}` };
const npm = (args: string[], cwd: string) => run("npm", [...args, "--no-audit", "--no-fund"], { cwd, env });

let dir = "";
let files: string[] = [];
let server: Server;
let api = "";
const seen: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lattice-client-package-"));
  const packed = await npm(["pack", "--json", "--pack-destination", dir], join(ROOT, "clients/typescript"));
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  files = info!.files.map((f) => f.path);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  const tarball = join(dir, info!.filename);
  try {
    await npm(["install", tarball, "--offline"], dir);
  } catch (error) {
    if (!String(error).includes("ENOTCACHED")) throw error;
    console.info("npm's cache lacks openapi-fetch's metadata: installing with --prefer-offline");
    await npm(["install", tarball, "--prefer-offline"], dir);
  }
  for (const f of ["use.mjs", "use.ts"]) copyFileSync(join(FIXTURES, f), join(dir, f));

  // A stand-in for the API: a session opens; listing its consents is refused in the error shape.
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "POST" && req.url === "/v1/sessions") reply(201, { id: "ses_1", userId: "sam" });
    else reply(403, { error: { code: "forbidden", message: "not yours" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the packed @lattice/client, installed into a scratch project", () => {
  it("ships built JS and declarations, not the TypeScript source", () => {
    expect(files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/verify.js", "dist/verify.d.ts"]),
    );
    expect(files.filter((f) => f.startsWith("src/") || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toEqual(
      [],
    );
  });

  it("runs under plain Node: a call through the typed client, its error, and the signature check", async () => {
    const { stdout } = await run(process.execPath, ["use.mjs", api], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      session: { id: "ses_1", userId: "sam" },
      error: { status: 403, code: "forbidden" },
      verified: { ok: true, body: "{}" },
      tampered: { ok: false, reason: "signature does not match", body: '{"x":1}' },
    });
    expect(seen).toEqual([
      "POST /v1/sessions Bearer lk.scratch",
      "GET /v1/sessions/ses_1/consents?status=pending Bearer lk.scratch",
    ]);
  });

  it("exposes only its exports: the source path is not importable (the control)", async () => {
    const code = 'await import("@lattice/client/src/index.ts")';
    const failed = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: dir }).catch(
      (e: { stderr: string }) => e.stderr,
    );
    expect(failed).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("type-checks an app's TypeScript, and a type error in it fails (the control)", async () => {
    writeFileSync(
      join(dir, "bad.ts"),
      'import { createLattice } from "@lattice/client";\nexport const n: number = createLattice({ baseUrl: "", key: "" });\n',
    );
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        noEmit: true,
      },
      files: ["use.ts", "bad.ts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const out = await run(process.execPath, [tsc, "-p", "."], { cwd: dir }).catch(
      (e: { stdout: string }) => e.stdout,
    );
    const errors = String(out).trim().split("\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^bad\.ts\(2,14\): error TS2322/);
  }, 60_000);
});
