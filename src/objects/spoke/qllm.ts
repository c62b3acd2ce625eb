import { schemaViolations } from "../../apps/schemas.ts";
import { StrictDecodeError, strictOutputSchema } from "../../apps/strict-schema.ts";
import type { QllmCall, QllmErrorCode, QllmResult } from "../../contracts.ts";
import {
  type AiBinding,
  type CompletionResult,
  complete,
  type ModelConfig,
  ModelError,
  type ModelLimits,
  needsStrictForm,
} from "../../llm/index.ts";
import { jsonShapeError } from "../../policy/json-guard.ts";
import { failure } from "../../result.ts";

/**
 * A vanilla spoke's q-llm call: the step's schema made strict first when the model is held to
 * strict schemas (refused before the call if it cannot be), one repair-free retry for an answer
 * that is not JSON for the schema, every call's tokens counted. The answer is checked against the
 * schema as the planner wrote it: the strict form only guides the model.
 */
export async function runQllm(
  request: QllmCall,
  model: { config: ModelConfig; limits: ModelLimits; ai?: AiBinding },
  recordTokens: (tokens: number) => Promise<void>,
): Promise<QllmResult> {
  let strict: ReturnType<typeof strictOutputSchema> | null = null;
  if (needsStrictForm(model.config)) {
    strict = strictOutputSchema(request.schema);
    if (!strict.ok) {
      return failure(
        "schema_not_strict",
        `the q-llm step's schema cannot be made strict for this model: ${strict.details.join("; ")}`,
      );
    }
  }
  let last: { code: QllmErrorCode; message: string } = { code: "invalid_model_output", message: "" };
  let spent = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    let answer: CompletionResult;
    try {
      answer = await complete(
        model.config,
        {
          role: "qllm",
          messages: [
            {
              role: "system",
              content: "Answer the task using only the given inputs. Reply with JSON matching the schema.",
            },
            {
              role: "user",
              content: `Task: ${request.prompt}\n\nInputs:\n${JSON.stringify(request.inputs)}`,
            },
          ],
          schema: { name: "answer", schema: request.schema, ...(strict?.ok && { strict: strict.schema }) },
        },
        model.limits,
        { ai: model.ai },
      );
    } catch (error) {
      if (error instanceof ModelError) return failure(error.code, error.message);
      throw error;
    }
    const tokens = answer.usage.inputTokens + answer.usage.outputTokens;
    spent += tokens;
    await recordTokens(tokens); // every call, a bad answer's too: the provider bills it
    const read = readValue(
      answer,
      request.schema,
      strict?.ok && answer.form === "strict" ? strict.decode : null,
    );
    if (read.ok) return { ok: true, value: read.value, tokens: spent };
    last = read;
    if (!read.retry) break;
  }
  return failure(last.code, last.message);
}

type Read =
  | { ok: true; value: unknown }
  | { ok: false; code: QllmErrorCode; message: string; retry: boolean };

/** The model's words never reach the message: an answer read untrusted data and may carry anything. */
function readValue(
  answer: CompletionResult,
  schema: unknown,
  decode: ((v: unknown) => unknown) | null,
): Read {
  const bad = (message: string, retry = true): Read => ({
    ok: false,
    code: "invalid_model_output",
    message,
    retry,
  });
  if (answer.finish === "refusal") return bad("the q-llm declined to answer", false);
  if (answer.finish === "length") return bad("the q-llm answer was cut off at its output token limit");
  if (answer.finish === "tool_calls") return bad("the q-llm answered with a tool call, not JSON");
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    return bad("the q-llm answer is not JSON");
  }
  // Bounded and plain before any recursion over it (decoding, the schema check).
  const shape = jsonShapeError(value);
  if (shape) return bad(`the q-llm answer is not usable JSON: ${shape.message}`);
  let problems: string[];
  try {
    if (decode) value = decode(value);
    problems = schemaViolations(schema, value);
  } catch (error) {
    if (error instanceof StrictDecodeError)
      return bad(`the q-llm answer cannot be decoded: ${error.message}`);
    return bad("the q-llm answer could not be checked against its schema");
  }
  // Named by the place in the schema only: the answer's own property names are the model's words.
  return problems.length ? bad(`the q-llm answer breaks its schema: ${problems[0]}`) : { ok: true, value };
}
