/** bench:security's simulated users on an endorsement asked before the plan runs (#43). */
import { describe, expect, it } from "vitest";
import type { ConsentView, UserTask } from "../../bench/security/types.ts";
import { decide } from "../../bench/security/users.ts";

const task = { intends: () => false } as unknown as UserTask;
const warned = (kind: string): ConsentView => ({
  id: "con_1",
  kind,
  functionality: "mail.send",
  data: { step: "steps[2]", planned: [{ argument: "to", rules: ["integrity"], from: [] }] },
  assessment: { verdict: "warning", reasons: ['"to" of mail.send derives from content'] },
});

describe("a simulated user on endorse_plan", () => {
  it("the informed user allows it (no value to read yet) and still judges the step's endorse", () => {
    expect(decide("informed", task, warned("endorse_plan")).decision).toBe("allow");
    // The control: the same warned consent as a valued endorse the task does not intend is denied.
    expect(decide("informed", task, warned("endorse")).decision).toBe("deny");
  });

  it("the cautious user denies it, as any warning", () => {
    expect(decide("cautious", task, warned("endorse_plan")).decision).toBe("deny");
  });
});
