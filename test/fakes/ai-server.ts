/**
 * A FAKE Workers AI binding for the Workers pool (a test double, never a model): the API Worker's
 * `AI` binding is an RPC entrypoint of this auxiliary worker, so the real hub and spokes call
 * `env.AI.run(model, inputs, options)` as they would on Cloudflare. Answers are recorded results
 * set per model name (the last one repeats); every call is logged.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  STATE: DurableObjectNamespace<FakeAiState>;
}

export class FakeAiState extends DurableObject {
  private answers = new Map<string, unknown[]>();
  private log = new Map<string, unknown[]>();

  setAnswers(model: string, answers: unknown[]): void {
    this.answers.set(model, answers);
    this.log.set(model, []);
  }

  calls(model: string): unknown[] {
    return this.log.get(model) ?? [];
  }

  next(model: string, inputs: unknown): unknown {
    const log = this.log.get(model) ?? [];
    log.push(inputs);
    this.log.set(model, log);
    const answers = this.answers.get(model) ?? [];
    if (!answers.length) throw new Error(`no recorded answer for ${model}`);
    return answers[Math.min(log.length, answers.length) - 1];
  }
}

export class FakeAi extends WorkerEntrypoint<Env> {
  private state() {
    return this.env.STATE.getByName("fake");
  }

  async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
    return this.state().next(model, inputs);
  }

  /** Test-only: what `run` answers for `model`, and what it was sent. */
  async setAnswers(model: string, answers: unknown[]): Promise<void> {
    await this.state().setAnswers(model, answers);
  }

  async calls(model: string): Promise<unknown[]> {
    return this.state().calls(model);
  }
}

export default {
  fetch: () => new Response("the fake AI binding is reached over RPC", { status: 404 }),
};
