import { describe, expect, it } from "vitest";
import { CallProgress, MAX_PROGRESS_EVENTS, type ProgressReport } from "../../src/objects/hub/progress.ts";
import type { HubStore } from "../../src/objects/hub/store.ts";

/** Which progress reports a hub writes as `step_progress` (src/objects/hub/progress.ts). */
function hub() {
  const written: Array<{ queryId: string; type: string; data: Record<string, unknown> }> = [];
  const store = {
    emit: (queryId: string, type: string, data: Record<string, unknown>) =>
      written.push({ queryId, type, data }),
  };
  return { progress: new CallProgress(store as unknown as HubStore), written };
}
const step = { queryId: "q_1", key: "steps[0]", tool: "everything.slow", app: "everything" };

describe("CallProgress", () => {
  const cases: Array<[string, ProgressReport[], number[]]> = [
    [
      "increasing reports, each written",
      [
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
      ],
      [33, 66],
    ],
    [
      "a repeat or a step back says nothing new; without a total, the count of reports",
      [{ progress: 2 }, { progress: 2 }, { progress: 1 }, { progress: 3 }],
      [1, 2],
    ],
    [
      "a report within the same whole percent says nothing new",
      [
        { progress: 0.101, total: 1 },
        { progress: 0.109, total: 1 },
        { progress: 5, total: 1 },
      ],
      [10, 100],
    ],
    [
      "no number, no event",
      [{ progress: Number.NaN }, { progress: -1 }, { progress: Number.POSITIVE_INFINITY }],
      [],
    ],
    [
      "a total that is no total is refused",
      [
        { progress: 1, total: 0 },
        { progress: 1, total: Number.NaN },
      ],
      [],
    ],
    ["a fraction is a whole percent", [{ progress: 0.5, total: 1 }], [50]],
  ];
  it.each(cases)("%s", async (_name, reports, written) => {
    const h = hub();
    await h.progress.during("call_1", step, async () => {
      for (const report of reports) h.progress.report("call_1", report);
    });
    expect(h.written.map((w) => w.data.progress)).toEqual(written);
    for (const w of h.written)
      expect(w).toMatchObject({
        queryId: "q_1",
        type: "step_progress",
        data: { key: "steps[0]", kind: "tool", app: "everything" },
      });
  });

  it("takes a report only for a call it waits on: not another id, not after the call", async () => {
    const h = hub();
    expect(h.progress.report("call_1", { progress: 1 })).toBe(false);
    await h.progress.during("call_1", step, async () => {
      expect(h.progress.report("call_2", { progress: 1 })).toBe(false);
      expect(h.progress.report("call_1", { progress: 1 })).toBe(true);
    });
    expect(h.progress.report("call_1", { progress: 2 })).toBe(false);
    expect(h.written).toHaveLength(1);
  });

  it(`writes at most ${MAX_PROGRESS_EVENTS} events per call`, async () => {
    const h = hub();
    await h.progress.during("call_1", step, async () => {
      for (let i = 1; i <= MAX_PROGRESS_EVENTS + 10; i++) h.progress.report("call_1", { progress: i });
    });
    expect(h.written).toHaveLength(MAX_PROGRESS_EVENTS);
  });

  it("carries only the numbers, whatever else a report holds", async () => {
    const h = hub();
    const report = { progress: 1, total: 2, message: "Lattice: all done, click here" } as ProgressReport;
    await h.progress.during("call_1", step, async () => h.progress.report("call_1", report));
    expect(h.written[0]!.data).toEqual({
      key: "steps[0]",
      kind: "tool",
      tool: "everything.slow",
      app: "everything",
      progress: 50,
      total: 100,
    });
  });

  it("never carries an app's raw numbers: a value read digit by digit leaves as a count or a percent (#43)", async () => {
    // An app that read a secret reports it as progress: 4111.1111 of 10000, then as a bare count.
    const h = hub();
    await h.progress.during("call_1", step, async () => {
      h.progress.report("call_1", { progress: 4111.1111, total: 10_000 });
      h.progress.report("call_1", { progress: 5_551_234 });
    });
    expect(h.written.map((w) => [w.data.progress, w.data.total])).toEqual([
      [41, 100],
      [2, undefined],
    ]);
    expect(JSON.stringify(h.written)).not.toMatch(/4111|5551234/);
    for (const w of h.written) expect(Number.isInteger(w.data.progress)).toBe(true);
  });
});
