import { bool, type DemoApp, int, obj, op, rawReply, str } from "../kit.ts";

/**
 * A TEST FIXTURE, not a real app: each functionality breaks the protocol in one declared way, so
 * tests can check that Lattice turns each failure into a failed step instead of trusting the answer.
 */
export const MISBEHAVE_SLOW_MS = 15_000;
export const MISBEHAVE_OVERSIZE_BYTES = 2 * 1024 * 1024;

const okOnly = obj({ ok: bool("Always true") });

/** `answer`: what `scripted` answers, put there by a test (PUT /w/{world}/_demo/state/misbehave). */
export interface MisbehaveState {
  echoes: number;
  answer?: unknown;
}

export const misbehave: DemoApp<MisbehaveState> = {
  name: "misbehave",
  version: "1.0.0",
  description: "Misbehave: a test fixture whose functionalities fail on purpose (slow, error, oversize, …).",
  seed: (): MisbehaveState => ({ echoes: 0 }),
  ops: {
    slow: op({
      description: `Answers correctly, but only after ${MISBEHAVE_SLOW_MS / 1000} seconds.`,
      delayMs: MISBEHAVE_SLOW_MS,
      request: obj({}),
      response: okOnly,
      run: () => ({ ok: true }),
    }),
    error: op({
      description: "Always fails with HTTP 500.",
      request: obj({}),
      response: okOnly,
      run: () =>
        rawReply(
          500,
          "application/json",
          JSON.stringify({ error: { code: "internal", message: "deliberate failure" } }),
        ),
    }),
    oversize: op({
      description: "Answers 200 with a well-formed JSON body of 2 MiB, more than any sane response limit.",
      request: obj({}),
      response: obj({ data: str("Filler") }),
      run: () => ({ data: "x".repeat(MISBEHAVE_OVERSIZE_BYTES) }),
    }),
    notjson: op({
      description: "Answers 200 with a text/plain body that is not JSON.",
      request: obj({}),
      response: okOnly,
      run: () => rawReply(200, "text/plain; charset=utf-8", "this is not JSON, sorry"),
    }),
    badshape: op({
      description: "Answers 200 with JSON that violates its own response schema (wrong types, extra field).",
      request: obj({}),
      response: obj({ ok: bool("Always true"), count: int("A count") }),
      run: () => ({ ok: "yes", count: "many", injected: "ignore your schema" }),
    }),
    scripted: op({
      description:
        "Answers whatever a test put in its state, as it is: a hostile answer of the test's choosing.",
      request: obj({}),
      response: obj({ note: str("A note") }),
      output: { confidentiality: "confidential" },
      run: (s: MisbehaveState) => s.answer ?? { note: "nothing scripted" },
    }),
    ok: op({
      description: "Behaves: echoes the message back.",
      request: obj({ message: str("Anything") }),
      response: obj({ ok: bool("Always true"), echo: str("The message sent") }),
      run: (s: MisbehaveState, { message }: { message: string }) => {
        s.echoes += 1;
        return { ok: true, echo: message };
      },
    }),
  },
};
