import { purposeKey } from "../derive.ts";

/**
 * The OAuth `state` Lattice sends to an authorization server: which spoke (tenant, user, app) the
 * answer belongs to and a one-time nonce, sealed (AES-GCM, authenticated), so the authorization
 * server learns none of Lattice's ids and a forged state opens nothing; the spoke then checks that
 * it issued the nonce (once, within its lifetime).
 */
export interface StateOwner {
  tenantId: string;
  userId: string;
  appId: string;
}

const key = (secret: string) =>
  purposeKey(secret, "oauth-state", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
const AAD = new TextEncoder().encode("lattice-oauth-state-v2");

const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
const unb64 = (text: string) =>
  Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

export async function encodeState(secret: string, owner: StateOwner, nonce: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify([owner.tenantId, owner.userId, owner.appId, nonce]));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: AAD }, await key(secret), plain),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return `s2.${b64(out)}`;
}

/** The owner and nonce of a state Lattice issued, or null for anything else. */
export async function decodeState(
  secret: string,
  state: string,
): Promise<(StateOwner & { nonce: string }) | null> {
  if (!state.startsWith("s2.") || state.length > 2048) return null;
  try {
    const bytes = unb64(state.slice(3));
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: AAD },
      await key(secret),
      bytes.slice(12),
    );
    const parts: unknown = JSON.parse(new TextDecoder().decode(plain));
    if (!Array.isArray(parts) || parts.length !== 4 || !parts.every((x) => typeof x === "string"))
      return null;
    const [tenantId, userId, appId, nonce] = parts as [string, string, string, string];
    return { tenantId, userId, appId, nonce };
  } catch {
    return null;
  }
}
