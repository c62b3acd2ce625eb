import { timingSafeEqual } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  isConsentLink,
  linkReaches,
  mintConsentLink,
  mintUserToken,
  tenantOfCredential,
  verifyConsentLink,
  verifyUserToken,
} from "../../src/credentials.ts";

// workerd's constant-time compare, which Node's WebCrypto lacks: Node's own, same contract.
beforeAll(() => {
  const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: unknown };
  subtle.timingSafeEqual ??= (a: ArrayBufferView, b: ArrayBufferView) =>
    a.byteLength === b.byteLength &&
    timingSafeEqual(
      new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
      new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
    );
});

const SECRET = "node-test-secret";
const NOW = Date.UTC(2026, 11, 3, 12) / 1000;
const SID = `ses_${"a".repeat(32)}`;
const LINK = { u: "alice", s: SID, c: "con_1", exp: NOW + 600, kid: "key_1" };

describe("consent links: minted and checked without storage", () => {
  it("verifies its own link, naming tenant, user, session and consent", async () => {
    const link = await mintConsentLink(SECRET, LINK, "tn_a");
    expect(isConsentLink(link)).toBe(true);
    expect(tenantOfCredential(link)).toBe("tn_a");
    expect(await verifyConsentLink(SECRET, link, NOW * 1000)).toEqual({ ...LINK, tenantId: "tn_a" });
  });

  const tamper = async (change: (parts: string[]) => void) => {
    const parts = (await mintConsentLink(SECRET, LINK, "tn_a")).split(".");
    change(parts);
    return parts.join(".");
  };
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

  it.each<[string, () => Promise<string>, string | undefined, number]>([
    ["another deployment's secret", () => mintConsentLink("other-secret", LINK, "tn_a"), SECRET, NOW],
    ["no secret to check with", () => mintConsentLink(SECRET, LINK, "tn_a"), undefined, NOW],
    ["expired", () => mintConsentLink(SECRET, LINK, "tn_a"), SECRET, LINK.exp],
    ["another tenant's id put in", () => tamper((p) => (p[1] = "tn_b")), SECRET, NOW],
    ["another consent put in", () => tamper((p) => (p[2] = encode({ ...LINK, c: "con_2" }))), SECRET, NOW],
    ["a tag cut short", () => tamper((p) => (p[3] = p[3]!.slice(1))), SECRET, NOW],
    [
      "a payload that is no link",
      () => mintConsentLink(SECRET, { ...LINK, s: "ses_x" }, "tn_a"),
      SECRET,
      NOW,
    ],
    [
      "a user token's tag (another purpose's key)",
      async () => {
        const token = await mintUserToken(SECRET, { u: "alice", exp: NOW + 600, kid: "key_1" }, "tn_a");
        return `lc.${token.slice(3)}`;
      },
      SECRET,
      NOW,
    ],
  ])("refuses a link with %s", async (_what, make, secret, at) => {
    expect(await verifyConsentLink(secret, await make(), at * 1000)).toBeNull();
  });

  it("is no user token either: a link's tag does not verify under the user-token key", async () => {
    const link = await mintConsentLink(SECRET, LINK, "tn_a");
    expect(await verifyUserToken(SECRET, `lu.${link.slice(3)}`, NOW * 1000)).toBeNull();
  });

  it.each([
    ["GET", `/v1/sessions/${SID}/consents/con_1`, true],
    ["POST", `/v1/sessions/${SID}/consents/con_1`, true],
    ["PUT", `/v1/sessions/${SID}/consents/con_1`, false],
    ["DELETE", `/v1/sessions/${SID}/consents/con_1`, false],
    ["GET", `/v1/sessions/${SID}/consents/con_2`, false],
    ["GET", `/v1/sessions/${SID}/consents`, false],
    ["GET", `/v1/sessions/${SID}/consents/con_1/`, false],
    ["GET", `/v1/sessions/${SID}/consents/con_10`, false],
    ["GET", `/v1/sessions/ses_${"b".repeat(32)}/consents/con_1`, false],
    ["POST", `/v1/sessions/${SID}/queries`, false],
    ["POST", "/v1/openai/chat/completions", false],
  ])("reaches %s %s: %s", (method, path, reaches) => {
    expect(linkReaches(LINK, method, path)).toBe(reaches);
  });
});
