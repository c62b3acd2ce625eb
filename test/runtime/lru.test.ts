import { describe, expect, it } from "vitest";
import { Lru } from "../../src/lru.ts";

describe("Lru", () => {
  it("keeps at most max entries, dropping the least recently used (a read counts as a use)", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1); // now b is the least recently used
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c"), lru.size]).toEqual([1, undefined, 3, 2]);
    lru.set("a", 4); // a replaced value is a use too
    lru.set("d", 5);
    expect([lru.get("a"), lru.get("c"), lru.get("d")]).toEqual([4, undefined, 5]);
    lru.delete("a");
    expect([lru.get("a"), lru.size]).toEqual([undefined, 1]);
  });
});
