/**
 * The obedient model's HTTP face: a FAKE OpenAI-compatible server (a test double, never a model) on
 * loopback. `POST /v1/chat/completions` with model `obedient.<runKey>.<role>` answers as
 * behaviour.ts decides for that run's case, after a fixed latency, and accounts every call: role,
 * tokens received and returned (gpt-tokenizer), so a benchmark can compare model cost per task.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Case } from "../security/types.ts";
import {
  type Answer,
  agentAnswer,
  type ChatRequest,
  plannerAnswer,
  qllmAnswer,
  spokeAnswer,
} from "./behaviour.ts";
import { answerTokens, requestTokens } from "./tokens.ts";

export type Role = "planner" | "qllm" | "spoke" | "visor" | "agent";

export interface RunUsage {
  /** Planner answers that followed injected text. */
  hijacks: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  byRole: Partial<Record<Role, { calls: number; inputTokens: number; outputTokens: number }>>;
}

export interface ObedientRun {
  case: Case;
  carrier?: string;
}

export interface ObedientServer {
  baseURL: string;
  /** Makes `runKey` answer for this case; its usage starts at zero. */
  register(runKey: string, run: ObedientRun): void;
  usage(runKey: string): RunUsage;
  /** Requests the double could not answer (a benchmark bug, reported). */
  errors: string[];
  close(): Promise<void>;
}

export const modelName = (runKey: string, role: Role) => `obedient.${runKey}.${role}`;

export async function startObedient(options: { latencyMs: number }): Promise<ObedientServer> {
  const runs = new Map<string, ObedientRun>();
  const usage = new Map<string, RunUsage>();
  const errors: string[] = [];

  const answer = (body: ChatRequest): Answer => {
    const m = /^obedient\.(.+)\.(planner|qllm|spoke|visor|agent)$/.exec(body.model);
    const run = m ? runs.get(m[1]!) : undefined;
    if (!m || !run) throw new Error(`unknown model ${body.model}`);
    const role = m[2] as Role;
    if (role === "planner") return plannerAnswer(run.case, body);
    if (role === "agent") return agentAnswer(run.case, body, run.carrier);
    if (role === "qllm") return qllmAnswer(run.case, body);
    if (role === "spoke") return spokeAnswer(run.case, body, run.carrier);
    throw new Error(`the ${role} role has no scripted behaviour`);
  };

  const account = (body: ChatRequest, reply: Answer) => {
    const m = /^obedient\.(.+)\.(\w+)$/.exec(body.model);
    const u = usage.get(m?.[1] ?? "");
    if (!u) return { input: 0, output: 0 };
    if (reply.hijacked) u.hijacks++;
    const input = requestTokens(body);
    const output = answerTokens("text" in reply ? reply.text : JSON.stringify(reply.toolCalls));
    const role = m![2] as Role;
    const r = u.byRole[role] ?? { calls: 0, inputTokens: 0, outputTokens: 0 };
    u.byRole[role] = r;
    for (const x of [u, r]) {
      x.calls++;
      x.inputTokens += input;
      x.outputTokens += output;
    }
    return { input, output };
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => send(res, 500, { error: { message: String(e) } }));
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      return send(res, 404, { error: { message: "not found" } });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
    let reply: Answer;
    try {
      reply = answer(body);
    } catch (e) {
      errors.push(`${body.model}: ${e instanceof Error ? e.message : String(e)}`);
      return send(res, 400, { error: { message: String(e) } });
    }
    const tokens = account(body, reply);
    await new Promise((r) => setTimeout(r, options.latencyMs));
    const message =
      "text" in reply
        ? { role: "assistant", content: reply.text }
        : {
            role: "assistant",
            content: null,
            tool_calls: reply.toolCalls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments },
            })),
          };
    send(res, 200, {
      id: `chatcmpl-obedient-${Date.now()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, finish_reason: "text" in reply ? "stop" : "tool_calls", message }],
      usage: {
        prompt_tokens: tokens.input,
        completion_tokens: tokens.output,
        total_tokens: tokens.input + tokens.output,
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    register(runKey, run) {
      runs.set(runKey, run);
      usage.set(runKey, { hijacks: 0, calls: 0, inputTokens: 0, outputTokens: 0, byRole: {} });
    },
    usage: (runKey) =>
      usage.get(runKey) ?? { hijacks: 0, calls: 0, inputTokens: 0, outputTokens: 0, byRole: {} },
    errors,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
