import type { HubDO } from "../../objects/hub/index.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { readQuery, STOPPED, TURN_TIMEOUT_MS } from "../chat/session.ts";
import { ApiError } from "../errors.ts";
import { asked, type ConsentLinks, latticeField, renderQuery } from "../openai/render.ts";

/**
 * A query as an AI SDK UI message stream (`ai@7`, protocol v1): each tool or q-llm step a dynamic
 * tool part (its label as the output, never its value: values reach the user only through the
 * display), each consent a tool part awaiting approval with the hub's assessment, and the display
 * as the message's text. The stream ends when the query finishes or waits for the user.
 */
export type UiChunk = Record<string, unknown> & { type: string };

export interface Follow {
  hub: Rpc<HubDO>;
  qid: string;
  sid: string;
  links: ConsentLinks;
  /** Events up to this sequence number were already shown (a continuation after approvals). */
  after: number;
  /** Tool call ids the client already holds a part for. */
  known: Set<string>;
  /** A new assistant message's id; a continuation adds to the client's last message instead. */
  messageId?: string;
  /** Said before the query's own parts: answers that settled nothing, in words. */
  notes?: string[];
  /** Tool calls whose approval the user just denied. */
  denied?: string[];
  approvalId(consentId: string): Promise<string>;
}

const POLL_MS = 25;

export async function* uiChunks(f: Follow): AsyncGenerator<UiChunk> {
  yield {
    type: "start",
    ...(f.messageId && { messageId: f.messageId }),
    messageMetadata: { lattice: { sessionId: f.sid, queryId: f.qid } },
  };
  let textPart = 0;
  const text = function* (words: string): Generator<UiChunk> {
    const id = `text-${f.qid}-${f.after}-${textPart++}`;
    yield { type: "text-start", id };
    yield { type: "text-delta", id, delta: words };
    yield { type: "text-end", id };
  };
  for (const toolCallId of f.denied ?? []) yield { type: "tool-output-denied", toolCallId };
  for (const note of f.notes ?? []) yield* text(note);
  let cursor = f.after;
  const deadline = Date.now() + TURN_TIMEOUT_MS;
  let query: QueryView;
  try {
    for (;;) {
      query = await readQuery(f.hub, f.qid);
      for (const event of query.trace.filter((e) => e.seq > cursor)) {
        cursor = event.seq;
        for await (const chunk of eventChunks(event, query, f)) yield chunk;
      }
      if (STOPPED.has(query.status) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (err) {
    if (!(err instanceof ApiError)) console.error("ai-sdk stream failed", err);
    yield { type: "error", errorText: err instanceof ApiError ? err.message : "internal error" };
    return;
  }
  yield* text(renderQuery(query, f.links));
  yield { type: "finish", finishReason: "stop", messageMetadata: { lattice: latticeField(query, f.sid) } };
}

async function* eventChunks(
  event: QueryView["trace"][number],
  query: QueryView,
  f: Follow,
): AsyncGenerator<UiChunk> {
  const d = event.data as { key?: string; kind?: string; tool?: string; app?: string; label?: unknown };
  const key = typeof d.key === "string" ? d.key : null;
  const toolName = d.kind === "qllm" ? "lattice.q-llm" : String(d.tool ?? "tool");
  if (event.type === "step_started" && key && !f.known.has(key)) {
    f.known.add(key);
    const input = d.kind === "qllm" ? {} : { app: d.app ?? null };
    yield { type: "tool-input-available", toolCallId: key, toolName, input, dynamic: true };
  }
  if (event.type === "step_finished" && key) {
    if (!f.known.has(key)) {
      f.known.add(key);
      yield { type: "tool-input-available", toolCallId: key, toolName, input: {}, dynamic: true };
    }
    yield {
      type: "tool-output-available",
      toolCallId: key,
      output: { label: d.label ?? null },
      dynamic: true,
    };
  }
  if (event.type === "consent_requested") {
    const consent = query.consents.find((c) => c.id === (event.data as { consentId?: string }).consentId);
    if (consent?.status !== "pending") return;
    const toolCallId = consent.stepId || consent.id;
    f.known.add(toolCallId);
    yield {
      type: "tool-input-available",
      toolCallId,
      toolName: consent.functionality,
      input: consent.data ?? {},
      dynamic: true,
      title: asked(consent),
    };
    const { verdict, reasons } = consent.assessment;
    yield {
      type: "tool-approval-request",
      approvalId: await f.approvalId(consent.id),
      toolCallId,
      reason: `${verdict === "warning" ? "Warning" : "As expected"}: ${reasons.join("; ")}`,
      approvalDescriptor: {
        lattice: {
          consentId: consent.id,
          kind: consent.kind,
          ...(consent.to && { to: consent.to }),
          ...(consent.from && { from: consent.from }),
          assessment: consent.assessment,
          scopes: consent.scopes,
          ...(consent.options && { options: consent.options }),
          ...(consent.authorization && { authorization: consent.authorization }),
          answerAt: `${f.links.consoleBase}/sessions/${f.sid}/consents/${consent.id}`,
        },
      },
    };
  }
}

/** UI message stream frames: one `data:` line per chunk, then `[DONE]`. */
export async function* uiFrames(chunks: AsyncGenerator<UiChunk>): AsyncGenerator<string> {
  try {
    for await (const chunk of chunks) yield `data: ${JSON.stringify(chunk)}\n\n`;
  } finally {
    await chunks.return(undefined);
  }
  yield "data: [DONE]\n\n";
}
