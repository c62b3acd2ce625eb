/**
 * A FAKE OpenAI-compatible server (a test double, never a model): answers /v1/chat/completions from
 * scripts set per model name, and logs every request it receives so tests can prove what a model
 * was (and was not) shown. It lets the real `openai` provider path run over real HTTP in tests.
 */
import { DurableObject } from "cloudflare:workers";
import { pickEntry, scriptedAnswer } from "../../src/llm/script.ts";
import type { ChatMessage, ScriptEntry } from "../../src/llm/types.ts";
import { rpc } from "../../src/objects/rpc.ts";

interface Env {
  STATE: DurableObjectNamespace<FakeOpenAIState>;
}

/** A script entry may carry a recorded response body, sent back as it is (test/fixtures/recorded-answers.ts). */
type FakeEntry = ScriptEntry & { completion?: Record<string, unknown> };

interface OpenAIMessage {
  role: string;
  content?: string | null;
}

export class FakeOpenAIState extends DurableObject {
  private scripts = new Map<string, FakeEntry[]>();
  private log = new Map<string, unknown[]>();

  setScript(model: string, script: FakeEntry[]): void {
    this.scripts.set(model, script);
    this.log.set(model, []);
  }

  requests(model: string): unknown[] {
    return this.log.get(model) ?? [];
  }

  /** Picks the scripted entry and records the request (whole body, as the model would see it). */
  answer(body: { model: string; messages: OpenAIMessage[] }): FakeEntry | null {
    const log = this.log.get(body.model) ?? [];
    log.push(body);
    this.log.set(body.model, log);
    const messages = body.messages.map((m) => ({ role: m.role, content: m.content ?? "" }) as ChatMessage);
    return pickEntry(this.scripts.get(body.model) ?? [], messages) ?? null;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const state = rpc<FakeOpenAIState>(env.STATE.getByName("fake"));
    const scriptPath = /^\/_fake\/scripts\/([^/]+)$/.exec(url.pathname);
    if (scriptPath && request.method === "PUT") {
      const { script } = (await request.json()) as { script: FakeEntry[] };
      await state.setScript(decodeURIComponent(scriptPath[1]!), script);
      return Response.json({ ok: true });
    }
    const logPath = /^\/_fake\/log\/([^/]+)$/.exec(url.pathname);
    if (logPath) return Response.json({ requests: await state.requests(decodeURIComponent(logPath[1]!)) });
    if (url.pathname.endsWith("/chat/completions") && request.method === "POST") {
      const body = (await request.json()) as { model: string; messages: OpenAIMessage[] };
      const entry = await state.answer(body);
      if (!entry)
        return Response.json({ error: { message: `no scripted answer for ${body.model}` } }, { status: 400 });
      if (entry.latencyMs) await new Promise((resolve) => setTimeout(resolve, entry.latencyMs));
      if (entry.completion) return Response.json(entry.completion);
      const answer = scriptedAnswer(entry, body.model);
      // A script cannot know ids handed out at run time: "{{fxId}}" takes the latest one a tool returned.
      const fxId = [...JSON.stringify(body.messages).matchAll(/fxId\\?":\\?"(fx_[0-9a-f]+)/g)].at(-1)?.[1];
      if (fxId)
        for (const call of answer.toolCalls) call.arguments = call.arguments.replaceAll("{{fxId}}", fxId);
      const promptChars = JSON.stringify(body.messages).length;
      return Response.json({
        id: `chatcmpl-fake-${Date.now()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            finish_reason: answer.toolCalls.length ? "tool_calls" : "stop",
            message: {
              role: "assistant",
              content: answer.toolCalls.length ? null : answer.text,
              ...(answer.toolCalls.length && {
                tool_calls: answer.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }),
            },
          },
        ],
        usage: {
          prompt_tokens: Math.ceil(promptChars / 4),
          completion_tokens: Math.ceil(answer.text.length / 4),
          total_tokens: Math.ceil(promptChars / 4) + Math.ceil(answer.text.length / 4),
        },
      });
    }
    return Response.json({ error: { message: "not found" } }, { status: 404 });
  },
};
