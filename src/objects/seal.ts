/**
 * AES-GCM sealing (WebCrypto) of a secret at rest, bound by additional data to where it may be used:
 * opened with other bound data (a tampered row, another host) it yields null, never a guess.
 */
export async function seal(key: CryptoKey, bound: readonly unknown[], plain: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: aad(bound) },
      key,
      new TextEncoder().encode(plain),
    ),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return btoa(String.fromCharCode(...out));
}

export async function unseal(
  key: CryptoKey,
  bound: readonly unknown[],
  sealed: string,
): Promise<string | null> {
  const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: aad(bound) },
      key,
      bytes.slice(12),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

const aad = (bound: readonly unknown[]) => new TextEncoder().encode(JSON.stringify(bound));
