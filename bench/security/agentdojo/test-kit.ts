import type { Outcome } from "../types.ts";

/** What the AgentDojo ports' tests share: an app's operation run without a stack, and an outcome over app states. */

export const ctx = { now: new Date(), callId: null };

type App<S> = { ops: Record<string, { run: (s: S, i: Record<string, unknown>, c: typeof ctx) => unknown }> };

/** One operation of a demo app on a state, as the apps Worker would run it. */
export const run = <S>(app: App<S>, s: S, op: string, input: Record<string, unknown> = {}) =>
  app.ops[op]!.run(s, input, ctx) as Record<string, unknown>;

/** A finished run's outcome whose world holds `apps` (a check reads only the state it names). */
export const outcomeOver = (apps: unknown): Outcome => ({
  state: {
    world: "t",
    seededAt: null,
    secretsConfigured: [],
    apps: apps as Record<string, Record<string, unknown>>,
    calls: [],
  },
  mcp: {},
  shown: [],
  statuses: ["completed"],
});
