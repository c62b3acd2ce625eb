import { describe, expect, it } from "vitest";
import { PrincipalCache } from "../../src/worker/middleware/auth/principal-cache.ts";

const p = (keyId: string, tenantId = "tn_a") => ({ tenantId, keyId, role: "admin" });

describe("the principal cache", () => {
  it("trusts a verified key for its bound only", () => {
    const cache = new PrincipalCache(5000);
    cache.set("h1", p("k1"), 0);
    expect(cache.get("h1", 4999)).toEqual(p("k1"));
    expect(cache.get("h1", 5000)).toBeNull();
    expect(cache.get("h1", 1)).toBeNull(); // expired entries are gone, not revived
  });

  it("forgets a revoked key at once, only that tenant's", () => {
    const cache = new PrincipalCache(5000);
    cache.set("h1", p("k1"), 0);
    cache.set("h2", p("k1", "tn_b"), 0);
    cache.forgetKey("tn_a", "k1");
    expect(cache.get("h1", 1)).toBeNull();
    expect(cache.get("h2", 1)).toEqual(p("k1", "tn_b"));
  });

  it("is bounded (oldest first) and off with a zero bound", () => {
    const cache = new PrincipalCache(5000, 2);
    cache.set("h1", p("k1"), 0);
    cache.set("h2", p("k2"), 0);
    cache.set("h3", p("k3"), 0);
    expect(cache.get("h1", 1)).toBeNull();
    expect(cache.get("h3", 1)).toEqual(p("k3"));
    const off = new PrincipalCache(0);
    off.set("h1", p("k1"), 0);
    expect(off.get("h1", 0)).toBeNull();
  });

  it("refuses to re-cache a key forgotten here within the bound (an answer read before the revocation)", () => {
    const cache = new PrincipalCache(5000);
    cache.forgetKey("tn_a", "k1", 0);
    cache.set("h1", p("k1"), 10); // the in-flight check that read the key before it was revoked
    expect(cache.get("h1", 11)).toBeNull();
    cache.set("h1", p("k1"), 5001); // past the bound it is an ordinary key again
    expect(cache.get("h1", 5002)).toEqual(p("k1"));
  });
});
