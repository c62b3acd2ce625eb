import type { TokenNews } from "../../contracts.ts";
import type { ModelConfig } from "../../llm/index.ts";

/** How long a vanilla spoke may use a model the TenantDO resolved without asking again. */
export const MODEL_HOLD_MS = 1000;

/**
 * The q-llm model a vanilla spoke was last given, held between its calls. Asking the TenantDO
 * before every call, and awaiting the count after it, took two of a q-llm step's ~7 ms (timed inside
 * the spoke under local workerd). The bound: a hold lasts at most MODEL_HOLD_MS, and it ends at once
 * when the reply to a recorded call reports a newer policy version or today's tokens used up. So a
 * rotated key, a changed model or a used-up quota reaches the spoke's calls within a second, and
 * usually at its next call. Memory only: an evicted spoke asks again.
 */
export class HeldModel {
  private held: { model: ModelConfig; version: number; at: number } | null = null;

  /** The held model, if it may still be used. */
  get(now = Date.now()): ModelConfig | null {
    if (this.held && now - this.held.at >= MODEL_HOLD_MS) this.held = null;
    return this.held?.model ?? null;
  }

  hold(model: ModelConfig, version: number, now = Date.now()): void {
    this.held = { model, version, at: now };
  }

  /** A recorded call's reply: a new version or no tokens left ends the hold. */
  heard(news: TokenNews): void {
    if (this.held && (!news.left || news.version !== this.held.version)) this.held = null;
  }
}
