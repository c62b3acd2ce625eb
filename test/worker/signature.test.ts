/** The v2 request signature apps verify (examples/apps/src/signature.ts), and what it covers. */
import { describe, expect, it } from "vitest";
import {
  type SignedRequest,
  signLatticeRequest,
  verifyLatticeSignature,
} from "../../examples/apps/src/signature.ts";
import { signatureHeader } from "../../src/objects/spoke/endpoint.ts";

const SECRET = "whsec_test_0123456789abcdef";
const BODY = JSON.stringify({ from: "Home", to: "Airport" });
const T = 1_780_000_000;
const QUOTE: SignedRequest = {
  method: "POST",
  path: "/w/world/swiftride/quote",
  idempotencyKey: "idem-1",
  callId: "call_1",
  body: BODY,
};

describe("Lattice request signature (v2)", () => {
  it("verifies with the secret it was signed with, and matches what the spoke sends", async () => {
    const header = await signLatticeRequest(SECRET, QUOTE, T);
    expect(header).toMatch(/^t=1780000000,v2=[0-9a-f]{64}$/);
    expect(await verifyLatticeSignature(SECRET, header, QUOTE, { now: T + 10 })).toEqual({ ok: true });
    const spoke = await signatureHeader(
      [SECRET],
      { ...QUOTE, idempotencyKey: "idem-1", callId: "call_1" },
      T,
    );
    expect(spoke).toBe(header);
  });

  it("signs right with each secret whatever the spoke's key cache holds (more secrets than it keeps)", async () => {
    const secrets = Array.from({ length: 70 }, (_, i) => `whsec_rotating_${i}`);
    for (const secret of [...secrets, ...secrets.slice(0, 3)]) {
      const spoke = await signatureHeader(
        [secret],
        { ...QUOTE, idempotencyKey: "idem-1", callId: "call_1" },
        T,
      );
      expect(spoke).toBe(await signLatticeRequest(secret, QUOTE, T));
    }
  });

  it("refuses a captured quote replayed to /book, or with another idempotency key or call id", async () => {
    const header = await signLatticeRequest(SECRET, QUOTE, T);
    for (const replay of [
      { ...QUOTE, path: "/w/world/swiftride/book" },
      { ...QUOTE, idempotencyKey: "idem-2" },
      { ...QUOTE, callId: "call_2" },
      { ...QUOTE, method: "PUT" },
      { ...QUOTE, body: BODY.replace("Airport", "Harbour") },
    ]) {
      expect(await verifyLatticeSignature(SECRET, header, replay, { now: T })).toMatchObject({ ok: false });
    }
  });

  it("fails with another secret, and when the timestamp is outside the window or changed", async () => {
    const other = await signLatticeRequest("another-secret", QUOTE, T);
    expect(await verifyLatticeSignature(SECRET, other, QUOTE, { now: T })).toMatchObject({ ok: false });
    const header = await signLatticeRequest(SECRET, QUOTE, T);
    expect(await verifyLatticeSignature(SECRET, header, QUOTE, { now: T + 300 })).toEqual({ ok: true });
    expect(await verifyLatticeSignature(SECRET, header, QUOTE, { now: T + 301 })).toEqual({
      ok: false,
      reason: "timestamp outside the tolerance window",
    });
    expect(await verifyLatticeSignature(SECRET, header, QUOTE, { now: T - 301 })).toMatchObject({
      ok: false,
    });
    const refreshed = header.replace(`t=${T}`, `t=${T + 3600}`);
    expect(await verifyLatticeSignature(SECRET, refreshed, QUOTE, { now: T + 3600 })).toMatchObject({
      ok: false,
    });
  });

  it("rejects a missing or malformed header, a v1 header and an empty secret", async () => {
    const header = await signLatticeRequest(SECRET, QUOTE, T);
    for (const bad of [
      null,
      "",
      "v2=abc",
      `t=${T}`,
      `t=soon,v2=${"0".repeat(64)}`,
      `t=${T},v1=${"0".repeat(64)}`,
    ]) {
      expect(await verifyLatticeSignature(SECRET, bad, QUOTE, { now: T })).toMatchObject({ ok: false });
    }
    expect(await verifyLatticeSignature("", header, QUOTE, { now: T })).toMatchObject({ ok: false });
  });

  it("accepts any one valid v2 among several (a rotation signs with both secrets)", async () => {
    const both = await signatureHeader(
      ["new-secret", SECRET],
      { ...QUOTE, idempotencyKey: "idem-1", callId: "call_1" },
      T,
    );
    expect(both.match(/v2=/g)).toHaveLength(2);
    expect(await verifyLatticeSignature(SECRET, both, QUOTE, { now: T })).toEqual({ ok: true });
    expect(await verifyLatticeSignature("new-secret", both, QUOTE, { now: T })).toEqual({ ok: true });
  });
});
