import { Hono } from "hono";
import { randomId, sha256Hex } from "../../objects/crypto.ts";
import { type ApprovalScope, approvalId } from "../ai-sdk/approval-id.ts";
import { answerApprovals } from "../ai-sdk/approvals.ts";
import { parseChatRequest, userText } from "../ai-sdk/request.ts";
import { type Follow, uiChunks, uiFrames } from "../ai-sdk/stream.ts";
import { owedQuery } from "../chat/follow.ts";
import { clip, inert, isFinal } from "../chat/render.ts";
import {
  callerUser,
  consoleBase,
  newSession,
  ownSession,
  SESSION_HEADER,
  sse,
  startQuery,
} from "../chat/session.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { answererOf } from "../hub.ts";
import { requireRole } from "../middleware/auth/index.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

/**
 * The Vercel AI SDK's UI message stream for `useChat` (DefaultChatTransport): a user message starts
 * a query; an approval answer (`addToolApprovalResponse`) answers the consent its signed id names and
 * the stream follows the query on. Errors before the stream are the API's JSON errors.
 */
export const aiSdkRoutes = new Hono<AppEnv>().use(requireRole("frontend")).post("/chat", async (c) => {
  const body = await parseChatRequest(c.req.raw);
  const user = callerUser(c, body.user, "body.user");
  const secret = c.env.LATTICE_KEY_SECRET;
  if (!secret)
    throw new ApiError(503, "not_configured", { message: "this deployment sets no LATTICE_KEY_SECRET" });
  const { sid, hub } = await chatSession(c, user, body.id, c.req.header(SESSION_HEADER));
  const scope: ApprovalScope = { secret, tenantId: c.var.principal.tenantId, sid };
  const links = { consoleBase: consoleBase(c.env.LATTICE_PUBLIC_URL, c.req.url), sid };
  const common = { hub, sid, links, approvalId: (cid: string) => approvalId(scope, cid) };

  let follow: Follow;
  const answered = await answerApprovals(hub, scope, body, answererOf(c));
  if (answered) {
    follow = { ...common, ...answered };
  } else {
    const text = userText(body);
    if (text === null) {
      throw new ApiError(400, "no_user_message", {
        message: "the last message must be the user's, or answer an approval",
      });
    }
    // A request an earlier turn left open is reported on first: this message is not run (and is
    // never taken as a consent's answer).
    const owed = await owedQuery(hub);
    if (owed && !isFinal(owed.status)) {
      const note = `Your earlier request (${inert(clip(owed.text))}) is still open; this message was not run.`;
      // Shown again whole in this new message, its approval requests included.
      const messageId = randomId(`msg_${owed.id}`, 4);
      follow = { ...common, qid: owed.id, after: 0, known: new Set(), messageId, notes: [note] };
    } else {
      const query = await startQuery(hub, text);
      follow = { ...common, qid: query.id, after: 0, known: new Set(), messageId: `msg_${query.id}` };
    }
  }
  const headers = { "x-vercel-ai-ui-message-stream": "v1", [SESSION_HEADER]: sid };
  return sse((signal) => uiFrames(uiChunks({ ...follow, signal })), headers);
});

/** The named session (the user's own), else the one this chat id has for the user, opened once. */
async function chatSession(c: Ctx, user: string, chatId: string, header: string | undefined) {
  if (header) return { sid: header, hub: await ownSession(c, user, header) };
  // Derived, not stored: the same chat id of the same user finds its session again; another user's finds another.
  const digest = await sha256Hex(`ai-sdk\u0000${c.var.principal.tenantId}\u0000${user}\u0000${chatId}`);
  const sid = `ses_${digest.slice(0, 32)}`;
  const hub = await ownSession(c, user, sid).catch((err) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });
  return hub ? { sid, hub } : newSession(c, user, sid);
}
