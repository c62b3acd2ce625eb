/**
 * docs/signature-vectors.json, the request signature's test vectors for app developers: (a) each is
 * what Lattice's own signer (the spoke's signatureHeader) sends; (b) @lattice/client/verify accepts
 * each with any one of its secrets and refuses it tampered; (c) the Python in docs/app-signatures.md,
 * run as written, does the same (when python3 is on the machine).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type SignedRequest, verifyLatticeSignature } from "../../clients/typescript/src/verify.ts";
import { computeVectors, VECTORS_FILE } from "../../scripts/signature-vectors.ts";

type Vector = SignedRequest & { name: string; secrets: string[]; timestamp: number; header: string };
const committed = JSON.parse(readFileSync(VECTORS_FILE, "utf8")) as { vectors: Vector[] };
const { vectors } = committed;

/** The vector with one signed part changed: each must make the signature fail. */
const tamperings = (v: Vector): [string, SignedRequest][] => [
  ["body", { ...v, body: `${v.body} ` }],
  ["path", { ...v, path: `${v.path}x` }],
  ["idempotency key", { ...v, idempotencyKey: `${v.idempotencyKey}x` }],
  ["call id", { ...v, callId: `${v.callId}x` }],
  ["method", { ...v, method: "PUT" }],
];

describe("the signature test vectors", () => {
  it("are what Lattice's signer sends (else: npm run signature:vectors)", async () => {
    expect(vectors.length).toBeGreaterThanOrEqual(5);
    expect(committed).toEqual(await computeVectors());
  });

  it("verify with @lattice/client/verify, with each of their secrets", async () => {
    for (const v of vectors) {
      for (const secret of v.secrets) {
        const check = await verifyLatticeSignature(secret, v.header, v, { now: v.timestamp });
        expect(check, `${v.name} (${secret})`).toEqual({ ok: true });
      }
    }
  });

  it("are refused tampered, with another secret, or out of the window (the controls)", async () => {
    for (const v of vectors) {
      const at = { now: v.timestamp };
      for (const [part, request] of tamperings(v)) {
        const check = await verifyLatticeSignature(v.secrets, v.header, request, at);
        expect(check, `${v.name}: ${part} changed`).toEqual({
          ok: false,
          reason: "signature does not match",
        });
      }
      expect(await verifyLatticeSignature("another", v.header, v, at)).toMatchObject({ ok: false });
      const late = { now: v.timestamp + 301 };
      expect(await verifyLatticeSignature(v.secrets, v.header, v, late)).toMatchObject({ ok: false });
    }
  });
});

const doc = readFileSync("docs/app-signatures.md", "utf8");
const python = /```python\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
const hasPython = (() => {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// Runs the doc's function over every vector, as they are and tampered; prints the verdicts.
const HARNESS = `
import json, sys
out = []
for v in json.load(open(sys.argv[1]))["vectors"]:
    def check(secrets, body=v["body"], path=v["path"], now=v["timestamp"]):
        return verify_lattice_signature(secrets, v["header"], v["method"], path, v["idempotencyKey"],
                                        v["callId"], body.encode(), now=now)
    out.append({"name": v["name"],
                "each_secret": [check([s]) for s in v["secrets"]],
                "body_changed": check(v["secrets"], body=v["body"] + " "),
                "path_changed": check(v["secrets"], path=v["path"] + "x"),
                "late": check(v["secrets"], now=v["timestamp"] + 301)})
print(json.dumps(out))
`;

describe.skipIf(!hasPython)("the Python in docs/app-signatures.md", () => {
  it("accepts every vector and refuses it tampered or late (the controls)", () => {
    expect(python).toContain("def verify_lattice_signature(");
    const dir = mkdtempSync(join(tmpdir(), "lattice-sig-py-"));
    try {
      writeFileSync(join(dir, "check.py"), `${python}\n${HARNESS}`);
      const out = JSON.parse(
        execFileSync("python3", [join(dir, "check.py"), VECTORS_FILE], { encoding: "utf8" }),
      );
      expect(out).toEqual(
        vectors.map((v) => ({
          name: v.name,
          each_secret: v.secrets.map(() => true),
          body_changed: false,
          path_changed: false,
          late: false,
        })),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
