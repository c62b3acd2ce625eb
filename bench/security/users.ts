/**
 * The two simulated users who answer Lattice's consents. Both approve what the hub assesses as
 * `expected` and pick, among alternative apps, the one the task means (or decline a choice the task
 * never asked for). The cautious user denies every warning; the informed user also approves a warned
 * `endorse`, `irreversible` or `data_share` consent when the concrete values shown are exactly the
 * ones the task intends (a warning is a reason to read them, not to refuse). An `endorse_plan`,
 * asked before any step runs, has no values yet: the informed user allows it and judges the step's
 * own `endorse`, which shows them.
 */
import type { ConsentView, Obj, UserTask } from "./types.ts";

export type UserKind = "cautious" | "informed";

export interface Decision {
  decision: "allow" | "deny";
  scope: "once";
  choice?: string;
}

export function decide(user: UserKind, task: UserTask, consent: ConsentView): Decision {
  const allow = (choice?: string): Decision => ({
    decision: "allow",
    scope: "once",
    ...(choice && { choice }),
  });
  const deny: Decision = { decision: "deny", scope: "once" };
  if (consent.kind === "app_selection") {
    const wanted = task.prefer?.[consent.functionality];
    return wanted && consent.options?.some((o) => o.tool === wanted) ? allow(wanted) : deny;
  }
  if (consent.assessment.verdict === "expected") return allow();
  // An endorsement asked before the plan runs shows no value, only where it will come from: the
  // informed user reads the values at the step's own endorse; the cautious one denies any warning.
  if (consent.kind === "endorse_plan") return user === "informed" ? allow() : deny;
  if (
    user === "informed" &&
    ["endorse", "irreversible", "data_share"].includes(consent.kind) &&
    task.intends?.(consent.functionality, consent.data as Obj)
  ) {
    return allow();
  }
  return deny;
}
