import { describe, expect, it } from "vitest";
import { signLatticeRequest, verifyLatticeSignature } from "../../examples/apps/src/signature.ts";

const SECRET = "whsec_test_0123456789abcdef";
const BODY = JSON.stringify({ recipient: "DE89370400440532013000", amount: 10, subject: "rent" });
const T = 1_780_000_000;

describe("Lattice request signature", () => {
  it("verifies with the secret it was signed with", async () => {
    const header = await signLatticeRequest(SECRET, BODY, T);
    expect(header).toMatch(/^t=1780000000,v1=[0-9a-f]{64}$/);
    expect(await verifyLatticeSignature(SECRET, header, BODY, { now: T + 10 })).toEqual({ ok: true });
  });

  it("fails with another secret", async () => {
    const header = await signLatticeRequest("another-secret", BODY, T);
    expect(await verifyLatticeSignature(SECRET, header, BODY, { now: T })).toMatchObject({ ok: false });
  });

  it("fails when the body was tampered with", async () => {
    const header = await signLatticeRequest(SECRET, BODY, T);
    const tampered = BODY.replace('"amount":10', '"amount":1000');
    expect(tampered).not.toBe(BODY);
    expect(await verifyLatticeSignature(SECRET, header, tampered, { now: T })).toMatchObject({ ok: false });
  });

  it("fails when the timestamp is outside the window (replay), in either direction", async () => {
    const header = await signLatticeRequest(SECRET, BODY, T);
    expect(await verifyLatticeSignature(SECRET, header, BODY, { now: T + 300 })).toEqual({ ok: true });
    const late = await verifyLatticeSignature(SECRET, header, BODY, { now: T + 301 });
    expect(late).toEqual({ ok: false, reason: "timestamp outside the tolerance window" });
    expect(await verifyLatticeSignature(SECRET, header, BODY, { now: T - 301 })).toMatchObject({ ok: false });
    expect(
      await verifyLatticeSignature(SECRET, header, BODY, { now: T + 30, toleranceSeconds: 5 }),
    ).toMatchObject({
      ok: false,
    });
  });

  it("fails when the timestamp in the header is changed to look fresh", async () => {
    const header = await signLatticeRequest(SECRET, BODY, T);
    const refreshed = header.replace(`t=${T}`, `t=${T + 3600}`);
    expect(await verifyLatticeSignature(SECRET, refreshed, BODY, { now: T + 3600 })).toMatchObject({
      ok: false,
    });
  });

  it("rejects a missing or malformed header and an empty secret", async () => {
    const header = await signLatticeRequest(SECRET, BODY, T);
    for (const bad of [null, "", "v1=abc", `t=${T}`, `t=soon,v1=${"0".repeat(64)}`]) {
      expect(await verifyLatticeSignature(SECRET, bad, BODY, { now: T })).toMatchObject({ ok: false });
    }
    expect(await verifyLatticeSignature("", header, BODY, { now: T })).toMatchObject({ ok: false });
  });

  it("accepts any one valid v1 among several (secret rotation)", async () => {
    const good = await signLatticeRequest(SECRET, BODY, T);
    const old = await signLatticeRequest("old-secret", BODY, T);
    const both = `${old},v1=${good.split("v1=")[1]}`;
    expect(await verifyLatticeSignature(SECRET, both, BODY, { now: T })).toEqual({ ok: true });
  });
});
