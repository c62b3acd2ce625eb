import { DEMO_SCRIPT } from "./demo-script.ts";
import { pickEntry, scriptedAnswer } from "./script.ts";
import { type CompletionRequest, type CompletionResult, type ModelConfig, ModelError } from "./types.ts";

/**
 * The scripted provider: responses as data, for the offline demo and tests. It is named
 * "scripted:<model>" in every trace so it is never mistaken for a live model.
 */
export async function completeScripted(
  config: ModelConfig,
  request: CompletionRequest,
): Promise<CompletionResult> {
  const script = config.script ?? (config.model === "demo" ? DEMO_SCRIPT : []);
  const entry = pickEntry(script, request.messages, request.role);
  if (!entry) {
    throw new ModelError(
      "model_failed",
      `scripted model "${config.model}" has no answer for this ${request.role} request`,
    );
  }
  if (entry.latencyMs) await new Promise((resolve) => setTimeout(resolve, entry.latencyMs));
  const answer = scriptedAnswer(entry, `scripted:${config.model}`);
  const inputChars = request.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
  // A rough count so traces show sizes; real token counts come from live providers.
  answer.usage = { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(answer.text.length / 4) };
  return answer;
}
