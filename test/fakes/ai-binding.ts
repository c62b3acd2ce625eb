/**
 * A FAKE Workers AI binding (a test double, never a model): `run` answers from a recorded list (the
 * last answer repeats) or a function, and keeps every call so tests can see what was sent.
 */
import type { AiBinding } from "../../src/llm/index.ts";

export interface FakeAiCall {
  model: string;
  inputs: Record<string, unknown>;
  options?: Record<string, unknown>;
}

export class FakeAiBinding implements AiBinding {
  readonly calls: FakeAiCall[] = [];

  private readonly answers: unknown[] | ((call: FakeAiCall) => unknown | Promise<unknown>);

  constructor(answers: unknown[] | ((call: FakeAiCall) => unknown | Promise<unknown>)) {
    this.answers = answers;
  }

  async run(
    model: string,
    inputs: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<unknown> {
    const call = { model, inputs, ...(options && { options }) };
    this.calls.push(call);
    if (typeof this.answers === "function") return this.answers(call);
    return structuredClone(this.answers[Math.min(this.calls.length, this.answers.length) - 1]);
  }
}
