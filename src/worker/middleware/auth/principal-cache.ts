/**
 * Verified API keys, remembered per isolate for a few seconds so that every request does not ask the
 * tenant's one Durable Object (the hot object of a busy tenant). The revocation bound: a key revoked
 * through this isolate stops at once (the revoke route forgets it here); in other isolates it works
 * for at most `ttlMs` more. Keys are held by their SHA-256, never in clear. Pure: the clock is given.
 */
export interface CachedPrincipal {
  tenantId: string;
  keyId: string;
  role: string;
}

export class PrincipalCache {
  private readonly entries = new Map<string, CachedPrincipal & { until: number }>();
  /** Keys forgotten here, refused by `set` for a bound: an answer read before the revocation cannot re-cache it. */
  private readonly revoked = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;

  constructor(ttlMs: number, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  get(hash: string, now: number): CachedPrincipal | null {
    const hit = this.entries.get(hash);
    if (!hit) return null;
    if (hit.until <= now) {
      this.entries.delete(hash);
      return null;
    }
    const { until: _until, ...principal } = hit;
    return principal;
  }

  set(hash: string, principal: CachedPrincipal, now: number): void {
    if (this.ttlMs <= 0) return;
    const tomb = this.revoked.get(`${principal.tenantId}\u0000${principal.keyId}`);
    if (tomb !== undefined && tomb > now) return;
    this.entries.delete(hash); // re-inserted last: the oldest entry is the first to go
    this.entries.set(hash, { ...principal, until: now + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value ?? "");
  }

  /** A revoked key, forgotten in this isolate at once. */
  forgetKey(tenantId: string, keyId: string, now = Date.now()): void {
    for (const [hash, p] of this.entries)
      if (p.tenantId === tenantId && p.keyId === keyId) this.entries.delete(hash);
    this.revoked.set(`${tenantId}\u0000${keyId}`, now + this.ttlMs);
    if (this.revoked.size > this.max) this.revoked.delete(this.revoked.keys().next().value ?? "");
  }
}

/** How long a verified key is trusted without asking its tenant again (the revocation bound). */
export const PRINCIPAL_TTL_MS = 5_000;
/** A configured bound is clamped to this: a typo must not stretch revocation to hours. */
export const MAX_PRINCIPAL_TTL_MS = 60_000;
