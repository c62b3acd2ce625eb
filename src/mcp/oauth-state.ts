import { purposeKey } from "../derive.ts";

/**
 * The OAuth `state` Lattice sends to an authorization server: which spoke (tenant, user, app) the
 * callback belongs to, a one-time nonce, and an HMAC over both, so a forged callback cannot even
 * reach a spoke; the spoke then checks that it issued the nonce (once, within ten minutes).
 */
export interface StateOwner {
  tenantId: string;
  userId: string;
  appId: string;
}

const key = (secret: string) =>
  purposeKey(secret, "oauth-state", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]);

const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
const unb64 = (text: string) =>
  Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

export async function encodeState(secret: string, owner: StateOwner, nonce: string): Promise<string> {
  const body = `${b64(new TextEncoder().encode(JSON.stringify([owner.tenantId, owner.userId, owner.appId])))}.${nonce}`;
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", await key(secret), new TextEncoder().encode(body)),
  );
  return `s1.${body}.${b64(mac)}`;
}

/** The owner and nonce of a state Lattice issued, or null for anything else. */
export async function decodeState(
  secret: string,
  state: string,
): Promise<(StateOwner & { nonce: string }) | null> {
  const parts = state.split(".");
  if (parts.length !== 4 || parts[0] !== "s1") return null;
  const [, owner = "", nonce = "", mac = ""] = parts;
  try {
    const ok = await crypto.subtle.verify(
      "HMAC",
      await key(secret),
      unb64(mac),
      new TextEncoder().encode(`${owner}.${nonce}`),
    );
    if (!ok) return null;
    const ids: unknown = JSON.parse(new TextDecoder().decode(unb64(owner)));
    if (!Array.isArray(ids) || ids.length !== 3 || !ids.every((x) => typeof x === "string")) return null;
    const [tenantId, userId, appId] = ids as [string, string, string];
    return { tenantId, userId, appId, nonce };
  } catch {
    return null;
  }
}
