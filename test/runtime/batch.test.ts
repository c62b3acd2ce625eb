import { describe, expect, it } from "vitest";
import { bySize } from "../../src/objects/batch.ts";

const item = (chars: number) => ({ value: "x".repeat(chars - 2) }); // JSON adds the two quotes

describe("bySize", () => {
  it("keeps everything in one batch while it fits, in order", () => {
    const items = [item(10), item(20), item(30)];
    expect(bySize(items, 60)).toEqual([items]);
  });

  it("starts a new batch where the next value would pass the bound; a larger one goes alone", () => {
    const [a, b, c, d] = [item(40), item(30), item(100), item(5)];
    expect(bySize([a, b, c, d], 60)).toEqual([[a], [b], [c], [d]]);
    expect(bySize([a, d, b], 60)).toEqual([[a, d], [b]]);
  });

  it("gives no batch for nothing", () => {
    expect(bySize([], 10)).toEqual([]);
  });
});
