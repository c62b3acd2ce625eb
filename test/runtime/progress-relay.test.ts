import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { progressRelay } from "../../src/objects/spoke/progress.ts";

/** A spoke's relay of an app's progress to its hub (src/objects/spoke/progress.ts), on a fake clock. */
describe("progressRelay", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  // Each case: reports at [ms, progress]; the progress values the hub is sent, in order.
  const cases: Array<[string, Array<[number, number]>, number[]]> = [
    [
      "the first report leaves at once, the last at the end",
      [
        [0, 1],
        [100, 2],
      ],
      [1, 2],
    ],
    [
      "reports within one interval: only the newest is held",
      [
        [0, 1],
        [100, 2],
        [200, 3],
        [300, 4],
      ],
      [1, 4],
    ],
    [
      "one per interval over a long call",
      [
        [0, 1],
        [600, 2],
        [1200, 3],
        [1800, 4],
      ],
      [1, 2, 3, 4],
    ],
    [
      "a held report leaves when its interval ends",
      [
        [0, 1],
        [100, 2],
        [900, 3],
      ],
      [1, 2, 3],
    ],
    ["no reports, nothing sent", [], []],
  ];
  it.each(cases)("%s", async (_name, reports, sent) => {
    const got: number[] = [];
    const relay = progressRelay(async (p) => void got.push(p.progress), 500);
    let now = 0;
    for (const [at, progress] of reports) {
      await vi.advanceTimersByTimeAsync(at - now);
      now = at;
      relay.report({ progress, total: 10 });
    }
    await relay.end();
    expect(got).toEqual(sent);
  });

  it("sends one report at a time, in order, and end waits for the last", async () => {
    const log: string[] = [];
    const relay = progressRelay(async (p) => {
      log.push(`start ${p.progress}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      log.push(`end ${p.progress}`);
    }, 10);
    relay.report({ progress: 1 });
    await vi.advanceTimersByTimeAsync(20);
    relay.report({ progress: 2 });
    const ended = relay.end().then(() => log.push("ended"));
    await vi.advanceTimersByTimeAsync(200);
    await ended;
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "ended"]);
  });

  it("gives up waiting on a hub that does not answer, after a bound", async () => {
    const relay = progressRelay(() => new Promise(() => {}), 500);
    relay.report({ progress: 1 });
    let ended = false;
    const end = relay.end().then(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await end;
    expect(ended).toBe(true);
  });
});
