import type { QueryView } from "../../objects/hub/view.ts";
import type { HubEvent } from "../../runtime/index.ts";
import { asked, consentLink } from "../chat/render.ts";
import { type OpenedTurn, turnEvents } from "../chat/turn.ts";
import { ApiError } from "../errors.ts";

/**
 * A query as an AI SDK UI message stream (`ai@7`, protocol v1): each tool or q-llm step a dynamic
 * tool part (its label as the output, never its value: values reach the user only through the
 * display), each consent a tool part awaiting approval with the hub's assessment, and the display
 * as the message's text. The stream ends when the query finishes or asks the user.
 */
type UiChunk = Record<string, unknown> & { type: string };

export interface Follow {
  /** The chat turn (chat/turn.ts) this stream encodes. */
  turn: OpenedTurn;
  /** The turn's end (chat/turn.ts finishTurn): its text and `lattice` field. */
  finish(query: QueryView): Promise<{ text: string; lattice: unknown }>;
  /** Tool call ids the client already holds a part for. */
  known: Set<string>;
  /** A new assistant message's id; a continuation adds to the client's last message instead. */
  messageId?: string;
  /** Said before the query's own parts. */
  notes?: string[];
  /** Sent first: the ends of tool parts whose approval was answered (denied, or not answerable here). */
  closing?: UiChunk[];
  approvalId(consentId: string): Promise<string>;
  /** Aborted when the client goes away: the hub's stream is let go at once. */
  signal?: AbortSignal;
}

export async function* uiChunks(f: Follow): AsyncGenerator<UiChunk> {
  const { qid, sid } = f.turn;
  // A held request still running: the turn may move on to the new message's query once it ends.
  const mayMove = f.turn.waiting !== null;
  yield {
    type: "start",
    ...(f.messageId && { messageId: f.messageId }),
    messageMetadata: { lattice: { sessionId: sid, queryId: qid } },
  };
  let textPart = 0;
  const text = function* (words: string): Generator<UiChunk> {
    const id = `text-${qid}-${f.turn.after}-${textPart++}`;
    yield { type: "text-start", id };
    yield { type: "text-delta", id, delta: words };
    yield { type: "text-end", id };
  };
  for (const chunk of f.closing ?? []) yield chunk;
  for (const note of f.notes ?? []) yield* text(note);
  let query: QueryView;
  let end: { text: string; lattice: unknown };
  // Consents are shown once the query stops the turn, as they then stand (one answered meanwhile is not).
  const asked: string[] = [];
  const events = turnEvents(f.turn, f.signal);
  try {
    let next = await events.next();
    for (; !next.done; next = await events.next()) {
      const event = next.value;
      if (event.type === "consent_requested") asked.push(String(event.data.consentId));
      else if (event.queryId === f.turn.qid && !(mayMove && event.queryId === qid))
        yield* eventChunks(event, f);
      else {
        // Another request's progress (an earlier one's, or one this turn may move on from): its
        // steps' states only, apart by id, so no tool part of the message's own query is taken.
        const step = stepData(event);
        if (step) yield { ...step, id: `${event.queryId}:${step.id}` };
      }
    }
    query = next.value;
    for (const consent of query.consents.filter((c) => asked.includes(c.id) && c.status === "pending"))
      yield* approvalChunks(consent, f);
    // A query still going when the stream ends is reported on by the chat's next request.
    end = await f.finish(query);
  } catch (err) {
    if (!(err instanceof ApiError)) console.error("ai-sdk stream failed", err);
    yield { type: "error", errorText: err instanceof ApiError ? err.message : "internal error" };
    return;
  } finally {
    await events.return(undefined as never); // a client gone mid-way: the hub's stream is let go
  }
  yield* text(end.text);
  yield { type: "finish", finishReason: "stop", messageMetadata: { lattice: end.lattice } };
}

/**
 * A step's state as a data part (`data-lattice-step`, one per step, its id the step's key): each
 * later chunk of the same id replaces the part, so the message holds each step's latest state, and
 * `useChat` renders it from `message.parts`. Names (tool, app) are data for the frontend to show as
 * names; a progress report is numbers only.
 */
function stepData(event: HubEvent): UiChunk | null {
  const d = event.data as { key?: unknown; kind?: unknown; tool?: unknown; app?: unknown };
  if (typeof d.key !== "string") return null;
  const state = { step_started: "running", step_progress: "running", step_finished: "done" }[
    event.type as "step_started" | "step_progress" | "step_finished"
  ];
  if (!state) return null;
  const p = event.data as { progress?: unknown; total?: unknown };
  const data = {
    key: d.key,
    kind: d.kind === "qllm" ? "qllm" : "tool",
    ...(typeof d.tool === "string" && { tool: d.tool }),
    ...(typeof d.app === "string" && { app: d.app }),
    state,
    ...(typeof p.progress === "number" && { progress: p.progress }),
    ...(typeof p.total === "number" && { total: p.total }),
  };
  return { type: "data-lattice-step", id: d.key, data };
}

async function* eventChunks(event: HubEvent, f: Follow): AsyncGenerator<UiChunk> {
  const step = stepData(event);
  if (step) yield step;
  const d = event.data as { key?: string; kind?: string; tool?: string; app?: string; label?: unknown };
  const key = typeof d.key === "string" ? d.key : null;
  const toolName = d.kind === "qllm" ? "lattice.q-llm" : String(d.tool ?? "tool");
  const input = (id: string, value: unknown) => {
    f.known.add(id);
    return { type: "tool-input-available", toolCallId: id, toolName, input: value, dynamic: true };
  };
  if (event.type === "step_started" && key && !f.known.has(key)) {
    yield input(key, d.kind === "qllm" ? {} : { app: d.app ?? null });
  }
  if (event.type === "step_finished" && key) {
    if (!f.known.has(key)) yield input(key, {});
    yield {
      type: "tool-output-available",
      toolCallId: key,
      output: { label: d.label ?? null },
      dynamic: true,
    };
  }
}

/** A consent as a tool part awaiting approval: its concrete data as the input, the hub's assessment with it. */
async function* approvalChunks(consent: QueryView["consents"][number], f: Follow): AsyncGenerator<UiChunk> {
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
  // What a careful reader must know first: the view's warnings, in Lattice's words, by field.
  const lookFirst = (consent.view?.fields ?? []).flatMap((fl) =>
    fl.warnings.map(
      (w) =>
        `${fl.labelFrom === "data" ? JSON.stringify(fl.label) : fl.label}: ${w.message}${w.visible ? ` (shown visibly: ${w.visible})` : ""}`,
    ),
  );
  yield {
    type: "tool-approval-request",
    approvalId: await f.approvalId(consent.id),
    toolCallId,
    reason: [
      ...(lookFirst.length ? [`Look carefully: ${lookFirst.join("; ")}`] : []),
      // The verdict judges the plan; a value warned about above is not "as expected", whatever the plan.
      `${verdict === "warning" ? "Warning" : lookFirst.length ? "The request matches your words, but check the warnings above" : "As expected"}: ${reasons.join("; ") || "nothing unusual"}`,
    ].join(". "),
    approvalDescriptor: {
      lattice: {
        consentId: consent.id,
        kind: consent.kind,
        ...(consent.to && { to: consent.to }),
        ...(consent.from && { from: consent.from }),
        assessment: consent.assessment,
        scopes: consent.scopes,
        // An option's description is the app's own text: named as such, never as Lattice's.
        ...(consent.options && {
          options: consent.options.map((o) => ({ tool: o.tool, app: o.app, appSays: o.description })),
        }),
        ...(consent.authorization && { authorization: consent.authorization }),
        // The typed view (consent-view.ts): a UI renders its fields, sources and warnings.
        ...(consent.view && { view: consent.view }),
        answerAt: consentLink(f.turn.links, consent.id),
      },
    },
  };
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
