/** Keys derived from the deployment's secrets (WebCrypto), shared by the Worker and the objects. */

/**
 * A key for one purpose, derived (HKDF-SHA-256) from a deployment secret: the same secret seals
 * model keys and signs credentials without one use's key ever serving another. Derived once per
 * isolate: every request checks a tag, so the derivation must not repeat.
 */
export function purposeKey(
  secret: string,
  purpose:
    | "model-keys"
    | "api-keys"
    | "user-tokens"
    | "app-credentials"
    | "user-oauth"
    | "personal-token"
    | "oauth-state"
    | "chat-approvals"
    | "chat-sessions"
    | "consent-links",
  algorithm: Parameters<SubtleCrypto["deriveKey"]>[2],
  usages: string[],
): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = (async () => {
      const raw = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, [
        "deriveKey",
      ]);
      const info = new TextEncoder().encode(purpose);
      const params = { name: "HKDF", hash: "SHA-256", salt: new TextEncoder().encode("lattice"), info };
      return crypto.subtle.deriveKey(params, raw, algorithm, false, usages);
    })();
    derived.set(id, key);
  }
  return key;
}

const derived = new Map<string, Promise<CryptoKey>>();
