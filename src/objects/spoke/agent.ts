import type { Functionality, Manifest } from "../../apps/manifest.ts";
import { valueProblems } from "../../apps/schemas.ts";
import {
  type ChatMessage,
  complete,
  type ModelConfig,
  ModelError,
  type ModelLimits,
} from "../../llm/index.ts";
import { type SemanticException, type VisorCheck, visorAudit } from "../../policy/index.ts";
import { DEFAULT_LIMITS, postToApp, signatureHeader } from "./endpoint.ts";

/**
 * An agentic app's loop, run inside its SpokeDO: the app's own model (role `spoke`) sees only its
 * own instructions, the hub's request and its memory of this user; every tool call it proposes is
 * trapped by the visor before it reaches the app. Bounded in turns, time and tokens.
 */

export interface AgentSettings {
  model: ModelConfig;
  limits: ModelLimits;
  /** Corrections allowed after a semantic exception (tenant `selfCorrection`); then the call is refused. */
  selfCorrection: 0 | 1;
  checks: Record<VisorCheck, boolean>;
  maxTurns?: number;
  maxTokens?: number;
  maxMs?: number;
}

export interface AgentRun {
  app: { name: string; secret: string; manifest: Manifest };
  functionality: Functionality;
  request: Record<string, unknown>;
  memory: unknown[];
  idempotencyKey: string;
  callId: string;
  settings: AgentSettings;
}

export interface AgentEvent {
  type: "tool_call" | "visor_exception" | "tool_failed";
  tool: string;
  args?: unknown;
  exception?: SemanticException;
  message?: string;
}

export type AgentOutcome =
  | { ok: true; value: unknown; readUntrusted: boolean; events: AgentEvent[]; tokens: number }
  | {
      ok: false;
      code: string;
      message: string;
      readUntrusted: boolean;
      events: AgentEvent[];
      tokens: number;
    };

export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const agent = run.app.manifest.agent!;
  const fn = run.functionality;
  const allowed = agent.functionalities[fn.name] ?? [];
  const { settings } = run;
  const maxTurns = settings.maxTurns ?? 8;
  const maxTokens = settings.maxTokens ?? 60_000;
  const deadline = Date.now() + (settings.maxMs ?? 60_000);
  const events: AgentEvent[] = [];
  let tokens = 0;
  let readUntrusted = false;
  let exceptions = 0;
  const end = (code: string, message: string): AgentOutcome => ({
    ok: false,
    code,
    message,
    readUntrusted,
    events,
    tokens,
  });

  const messages: ChatMessage[] = [
    {
      role: "system",
      content:
        `${agent.instructions}\n\nYou are serving "${fn.name}": ${fn.description}\n` +
        `When done, answer with only JSON matching this schema: ${JSON.stringify(fn.response)}`,
    },
    ...(run.memory.length
      ? [
          {
            role: "user" as const,
            content: `Your earlier interactions with this user:\n${JSON.stringify(run.memory)}`,
          },
        ]
      : []),
    { role: "user", content: JSON.stringify({ functionality: fn.name, request: run.request }) },
  ];
  const tools = agent.tools
    .filter((t) => allowed.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));

  for (let turn = 0; turn < maxTurns; turn++) {
    if (Date.now() > deadline) return end("agent_time_limit", "the app's agent ran out of time");
    let answer: Awaited<ReturnType<typeof complete>>;
    try {
      answer = await complete(settings.model, { role: "spoke", messages, tools }, settings.limits);
    } catch (error) {
      if (error instanceof ModelError) return end(error.code, error.message);
      throw error;
    }
    tokens += answer.usage.inputTokens + answer.usage.outputTokens;
    if (tokens > maxTokens) return end("agent_token_limit", "the app's agent used up its token budget");
    if (!answer.toolCalls.length) return finish(answer.text);
    messages.push({ role: "assistant", content: answer.text || null, toolCalls: answer.toolCalls });
    for (const [i, call] of answer.toolCalls.entries()) {
      const args = parseArgs(call.arguments);
      const exception = visorAudit({
        functionality: { name: fn.name, irreversible: fn.irreversible },
        tools: agent.tools,
        allowed,
        request: run.request,
        call: { tool: call.name, args: args ?? {} },
        checks: settings.checks,
      });
      if (exception) {
        events.push({ type: "visor_exception", tool: call.name, args, exception });
        if (++exceptions > settings.selfCorrection) {
          return end(
            "visor_refused",
            `the visor refused ${call.name} (${exception.type}): ${exception.rationale}`,
          );
        }
        // The exception takes the tool result's place: the guest learns the rule, never more.
        messages.push({
          role: "tool",
          toolCallId: call.id,
          content: JSON.stringify({ semanticException: exception }),
        });
        continue;
      }
      const tool = agent.tools.find((t) => t.name === call.name)!;
      const problems = args ? valueProblems(tool.parameters, args) : ["arguments are not a JSON object"];
      if (problems.length) {
        events.push({ type: "tool_failed", tool: call.name, message: problems[0] });
        messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify({ error: problems }) });
        continue;
      }
      events.push({ type: "tool_call", tool: call.name, args });
      const body = JSON.stringify(args);
      const result = await postToApp(
        `${run.app.manifest.endpoint.replace(/\/+$/, "")}/${call.name}`,
        body,
        {
          "X-Lattice-Signature": await signatureHeader(run.app.secret, body, Math.floor(Date.now() / 1000)),
          "X-Lattice-Idempotency-Key": `${run.idempotencyKey}:${turn}:${i}`,
          "X-Lattice-Call": run.callId,
        },
        DEFAULT_LIMITS,
      );
      readUntrusted = true; // whatever the app returned may carry someone else's words
      if (!result.ok) events.push({ type: "tool_failed", tool: call.name, message: result.message });
      const content = result.ok ? JSON.stringify(result.value) : JSON.stringify({ error: result.message });
      messages.push({ role: "tool", toolCallId: call.id, content });
    }
  }
  return end("agent_turn_limit", `the app's agent did not finish within ${maxTurns} turns`);

  function finish(text: string): AgentOutcome {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return end("invalid_response", "the app's agent did not answer JSON");
    }
    const problems = valueProblems(fn.response, value);
    if (problems.length)
      return end("invalid_response", `the app's agent answer breaks its schema: ${problems[0]}`);
    return { ok: true, value, readUntrusted, events, tokens };
  }
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
