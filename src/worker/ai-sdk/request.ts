import { z } from "@hono/zod-openapi";
import type { Scope } from "../../policy/index.ts";
import { ApiError, invalid } from "../errors.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { fieldIssues } from "../validation.ts";

/**
 * What `useChat`'s DefaultChatTransport posts: `{id, messages, trigger, messageId}` plus the body
 * the frontend adds (here `user`). Parts are read loosely: only text parts of the last user message
 * and approval answers matter; everything else the client replays is its own word, never context.
 */
const Part = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  state: z.string().optional(),
  approval: z
    .looseObject({
      id: z.string().max(300),
      approved: z.boolean().optional(),
      reason: z.string().max(500).optional(),
    })
    .optional(),
});
const Message = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(["user", "assistant", "system"]),
  parts: z.array(Part).max(1000),
});

export const ChatRequest = z.object({
  id: z.string({ error: "id (the chat's id) is required" }).min(1).max(200),
  messages: z
    .array(Message, { error: "messages must be an array" })
    .min(1, "messages must not be empty")
    .max(1000),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  messageId: z.string().max(200).optional(),
  user: UserIdSchema.optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export async function parseChatRequest(request: Request): Promise<ChatRequest> {
  let raw: unknown;
  try {
    raw = JSON.parse(await request.text());
  } catch {
    throw new ApiError(400, "invalid_json", { message: "the request body is not valid JSON" });
  }
  const parsed = ChatRequest.safeParse(raw);
  if (parsed.success) return parsed.data;
  // The API's validation shape (every field named), with the first problem in the message.
  const issues = fieldIssues(parsed.error, "body");
  throw invalid(`${issues[0]?.field}: ${issues[0]?.message}`, issues);
}

/**
 * How long an approval stands: `addToolApprovalResponse({id, approved, reason})` may give `reason`
 * as `"session"` or `"permanent"`; anything else (no reason, or words) answers once.
 */
export function approvalScope(reason: string | undefined): Scope {
  const word = reason?.trim().toLowerCase();
  return word === "session" || word === "permanent" ? word : "once";
}

/**
 * The approval answers of the last message, if it is the assistant's: older answers stay in a chat's
 * history and were taken when they were new. Each id once.
 */
export function approvalAnswers(body: ChatRequest): Array<{ id: string; approved: boolean; scope: Scope }> {
  const last = body.messages.at(-1);
  if (last?.role !== "assistant") return [];
  const seen = new Map<string, { approved: boolean; scope: Scope }>();
  for (const p of last.parts) {
    if (p.state === "approval-responded" && p.approval && typeof p.approval.approved === "boolean") {
      seen.set(p.approval.id, { approved: p.approval.approved, scope: approvalScope(p.approval.reason) });
    }
  }
  return Array.from(seen, ([id, a]) => ({ id, ...a }));
}

/** The query text: the last message, if it is the user's, its text parts joined. */
export function userText(body: ChatRequest): string | null {
  const last = body.messages.at(-1);
  if (last?.role !== "user") return null;
  const text = last.parts
    .flatMap((p) => (p.type === "text" && p.text ? [p.text] : []))
    .join("\n")
    .trim();
  if (!text) throw new ApiError(400, "empty_message", { message: "the last user message has no text" });
  if (text.length > 8000)
    throw new ApiError(400, "message_too_long", { message: "the last user message exceeds 8000 characters" });
  return text;
}
