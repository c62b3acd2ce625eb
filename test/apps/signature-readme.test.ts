/**
 * examples/apps/README.md tells an app developer how to check Lattice's signature: its snippet,
 * run as written against a request signed by the code Lattice signs with, must accept it, and
 * refuse a v1 header and a request replayed to another path.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signLatticeRequest, verifyLatticeSignature } from "../../examples/apps/src/signature.ts";
import { signatureHeader } from "../../src/objects/spoke/endpoint.ts";

const readme = readFileSync("examples/apps/README.md", "utf8");
const section = readme.slice(readme.indexOf("1. **Signature**"), readme.indexOf("2. **Idempotency.**"));
const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1]?.replace(/^ {3}/gm, "") ?? "";

// The snippet is a handler's body: run it with `secret`, `request` and the helper in scope.
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (
  verify: typeof verifyLatticeSignature,
  secret: string,
  request: Request,
) => Promise<Response | undefined>;
const run = new AsyncFunction("verifyLatticeSignature", "secret", "request", `${snippet}\nreturn undefined;`);
const readmeCheck = (secret: string, request: Request) => run(verifyLatticeSignature, secret, request);

const SECRET = "app-secret-for-readme";
const URL_ = "https://app.example/w/demo/bank/send_money";
const BODY = JSON.stringify({ recipient: "DE89370400440532013000", amount: 40, subject: "lunch" });

async function signedRequest(url: string, signature: string): Promise<Request> {
  return new Request(url, {
    method: "POST",
    body: BODY,
    headers: {
      "X-Lattice-Signature": signature,
      "X-Lattice-Idempotency-Key": "idem-1",
      "X-Lattice-Call": "call-1",
    },
  });
}

const call = {
  method: "POST",
  path: "/w/demo/bank/send_money",
  idempotencyKey: "idem-1",
  callId: "call-1",
  body: BODY,
};

describe("the demo apps README's signature check", () => {
  it("has a snippet to run", () => {
    expect(snippet).toContain("verifyLatticeSignature(");
  });

  it("accepts a call Lattice signed, as the README's snippet runs it", async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = await signatureHeader(["old-secret", SECRET], call, now);
    expect(await readmeCheck(SECRET, await signedRequest(URL_, header))).toBeUndefined();
    // The helper's own signer agrees with Lattice's, byte for byte.
    expect(header.split(",").slice(-1)[0]).toBe((await signLatticeRequest(SECRET, call, now)).split(",")[1]);
  });

  it("refuses a v1 header, a call replayed to another path, and another secret with 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const v2 = await signatureHeader([SECRET], call, now);
    const v1 = v2.replace("v2=", "v1=");
    for (const [secret, request] of [
      [SECRET, await signedRequest(URL_, v1)],
      [SECRET, await signedRequest("https://app.example/w/demo/bank/balance", v2)],
      ["another-secret", await signedRequest(URL_, v2)],
    ] as const) {
      const refused = await readmeCheck(secret, request);
      expect(refused?.status).toBe(401);
      expect(await refused?.json()).toMatchObject({ error: { code: "bad_signature" } });
    }
  });
});
