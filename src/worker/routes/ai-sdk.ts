import { Hono } from "hono";
import { randomId } from "../../objects/crypto.ts";
import { type ApprovalScope, approvalId } from "../ai-sdk/approval-id.ts";
import { answerApprovals } from "../ai-sdk/approvals.ts";
import { parseChatRequest, userText } from "../ai-sdk/request.ts";
import { type Follow, uiChunks, uiFrames } from "../ai-sdk/stream.ts";
import { callerUser, consoleBase, SESSION_HEADER, sse } from "../chat/session.ts";
import { finishTurn, type OpenedTurn, openTurn, turnSession } from "../chat/turn.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { answererOf } from "../hub.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { forwardedTrace } from "../middleware/trace/index.ts";

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
  // The chat's id names its session as a chat frontend's header does (chat/turn.ts's one rule).
  const { sid, hub } = await turnSession(c, user, { name: "body.id", value: body.id });
  const scope: ApprovalScope = { secret, tenantId: c.var.principal.tenantId, sid };
  const session = {
    hub,
    sid,
    user,
    links: { consoleBase: consoleBase(c.env.LATTICE_PUBLIC_URL, c.req.url), sid },
    trace: forwardedTrace(c),
  };

  let turn: OpenedTurn;
  let rest: Pick<Follow, "known" | "messageId" | "notes" | "closing">;
  const answered = await answerApprovals(hub, scope, body, answererOf(c));
  if (answered) {
    // An approval answered here: the same query followed on in the client's last message.
    const { qid, after, ...told } = answered;
    turn = { ...session, qid, after, held: null, waiting: null, earlier: null };
    rest = told;
  } else {
    const text = userText(body);
    if (text === null) {
      throw new ApiError(400, "no_user_message", {
        message: "the last message must be the user's, or answer an approval",
      });
    }
    turn = await openTurn(session, text);
    // A request still open is shown again in a new message of its own, its approval requests included.
    const messageId = turn.held ? randomId(`msg_${turn.qid}`, 4) : `msg_${turn.qid}`;
    rest = { known: new Set(), messageId };
  }
  const follow: Follow = {
    turn,
    ...rest,
    finish: (query) => finishTurn(c, turn, query),
    approvalId: (cid: string) => approvalId(scope, cid),
  };
  const headers = { "x-vercel-ai-ui-message-stream": "v1", [SESSION_HEADER]: sid };
  return sse((signal) => uiFrames(uiChunks({ ...follow, signal })), headers);
});
