/**
 * The bench's zero-latency model: the tenant policy's `scripted` provider (responses as data, no
 * network, no delay), named as such. Each bench query is a tag, and the planner entry whose `when`
 * is that tag answers it (the planner's last user message is the query alone). Tags end in "]", so
 * no tag occurs inside another.
 */

export const MODEL = { provider: "scripted", model: "bench-zero-latency" } as const;

/** The fast demo app call every tool step makes: a read-only address-book lookup. */
const lookup = (i: number) => ({
  kind: "tool",
  out: `c${i}`,
  tool: "contacts.lookup",
  args: { name: { lit: "accountant" } },
  intent: "find the accountant",
  semantics: "the accountant's contact",
});

/** A q-LLM step answered by the zero-latency scripted model: hub and spoke work with no model time. */
const qllm = (i: number) => ({
  kind: "qllm",
  out: `s${i}`,
  inputs: { i: { lit: i } },
  prompt: "Return the number you are given as n.",
  schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  intent: "echo a number",
  semantics: "the number",
});

export type StepKind = "tool" | "qllm";

export const overheadTag = (kind: StepKind, n: number) => `[perf:${kind}=${n}]`;

/** n steps of one kind, then one display: with n = 0 the query is planning plus a display only. */
export function overheadPlan(kind: StepKind, n: number): { steps: unknown[] } {
  const steps: unknown[] = Array.from({ length: n }, (_, i) => (kind === "tool" ? lookup(i) : qllm(i)));
  const shown = n === 0 ? { lit: "nothing to do" } : { ref: `${kind === "tool" ? "c" : "s"}${n - 1}` };
  return { steps: [...steps, { kind: "display", value: shown, title: "result" }] };
}

export const SEED_TAG = "[perf:seed]";

/** One artifact of realistic size (the whole address book, ~1 KB) for the vault to be filled from. */
export const seedPlan = () => ({
  steps: [
    {
      kind: "tool",
      out: "book",
      tool: "contacts.list",
      args: {},
      intent: "read the address book",
      semantics: "every contact of the user",
    },
  ],
});

export const fillTag = (k: number, from: string) => `[perf:fill=${k}:${from}]`;

/**
 * k q-LLM steps that each read the artifact the planner was shown (retrieved once) and answer from
 * the zero-latency script; on completion the hub stores each named top-level result as a new
 * artifact: k artifacts written through the same path as every other query's results. (A retrieve's
 * own result is not stored again, so retrieves alone no longer fill anything.)
 */
export function fillPlan(k: number, from: string): { steps: unknown[] } {
  const read = { kind: "retrieve", out: "book", artifact: from };
  return {
    steps: [
      read,
      ...Array.from({ length: k }, (_, i) => ({ ...qllm(i), inputs: { book: { ref: "book" } } })),
    ],
  };
}

export interface Entry {
  tag: string;
  plan: { steps: unknown[] };
}

/** The policy every bench query runs under: default secure rules, the scripted model, room for big plans. */
export function benchPolicy(entries: readonly Entry[]): Record<string, unknown> {
  const script = [
    ...entries.map((e) => ({ role: "planner", when: e.tag, respond: e.plan })),
    { role: "qllm", respond: { n: 1 } },
  ];
  return { limits: { maxSteps: 2_000, maxCalls: 2_000 }, models: { default: { ...MODEL, script } } };
}

export function overheadEntries(sizes: readonly number[]): Entry[] {
  return (["tool", "qllm"] as const).flatMap((kind) =>
    sizes.map((n) => ({ tag: overheadTag(kind, n), plan: overheadPlan(kind, n) })),
  );
}
