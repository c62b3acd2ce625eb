import { Hono } from "hono";
import { sha256Hex } from "../../objects/crypto.ts";
import type { HubDO } from "../../objects/hub/index.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { type ApprovalScope, approvalId, consentOf } from "../ai-sdk/approval-id.ts";
import { approvalAnswers, type ChatRequest, parseChatRequest, userText } from "../ai-sdk/request.ts";
import { type Follow, uiChunks, uiFrames } from "../ai-sdk/stream.ts";
import {
  callerUser,
  consoleBase,
  newSession,
  ownSession,
  readQuery,
  SESSION_HEADER,
  sse,
  startQuery,
} from "../chat/session.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
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
  const { sid, hub } = await chatSession(c, user, body.id, c.req.header(SESSION_HEADER));
  const secret = c.env.LATTICE_KEY_SECRET;
  if (!secret) throw new ApiError(503, "not_configured", "this deployment sets no LATTICE_KEY_SECRET");
  const scope: ApprovalScope = { secret, tenantId: c.var.principal.tenantId, sid };
  const links = { consoleBase: consoleBase(c.env.LATTICE_PUBLIC_URL, c.req.url), sid };
  const common = { hub, sid, links, approvalId: (cid: string) => approvalId(scope, cid) };

  const answered = await answerApprovals(hub, scope, body);
  let follow: Follow;
  if (answered) {
    follow = { ...common, ...answered };
  } else {
    const text = userText(body);
    if (text === null)
      throw new ApiError(
        400,
        "no_user_message",
        "the last message must be the user's, or answer an approval",
      );
    const query = await startQuery(hub, text);
    follow = { ...common, qid: query.id, after: 0, known: new Set(), messageId: `msg_${query.id}` };
  }
  return sse(uiFrames(uiChunks(follow)), {
    "x-vercel-ai-ui-message-stream": "v1",
    [SESSION_HEADER]: sid,
  });
});

/**
 * Answers the open consents the replayed approvals name (old answers stay in a chat's history: the
 * hub's state says which are still open). Null when the request answers nothing, so it asks anew.
 */
async function answerApprovals(
  hub: Rpc<HubDO>,
  scope: ApprovalScope,
  body: ChatRequest,
): Promise<Pick<Follow, "qid" | "after" | "known" | "notes" | "denied"> | null> {
  const answers = approvalAnswers(body);
  if (!answers.length || body.messages.at(-1)?.role !== "assistant") return null;
  let last = null as Pick<Follow, "qid" | "known" | "notes" | "denied"> | null;
  for (const answer of answers) {
    const consentId = await consentOf(scope, answer.id);
    if (!consentId) {
      throw new ApiError(400, "invalid_approval", "an approval id was not issued for this session", [
        { field: "body.messages", message: `unknown approval ${answer.id.slice(0, 80)}` },
      ]);
    }
    const decision = answer.approved ? ("allow" as const) : ("deny" as const);
    const result = await hub.answerConsent(consentId, { decision, scope: "once" });
    // Answered before (an old answer replayed), expired or gone: nothing to follow for it.
    if (!result.ok && result.code !== "invalid_choice") continue;
    const consent = result.ok
      ? result.consent
      : (await hub.consents({ status: "pending" })).find((x) => x.id === consentId);
    if (!consent) continue;
    if (last?.qid !== consent.queryId)
      last = { qid: consent.queryId, known: new Set(), notes: [], denied: [] };
    const toolCallId = consent.stepId || consent.id;
    last.known.add(toolCallId);
    if (!result.ok)
      last.notes?.push(`Choose the app on the consent's page: approving here cannot say which.`);
    else if (decision === "deny") last.denied?.push(toolCallId);
  }
  if (!last) return null;
  // Follow on from the answer: the client holds what it was shown before.
  const query = await readQuery(hub, last.qid);
  const after = query.trace.findLast((e) => e.type === "consent_answered")?.seq ?? 0;
  return { ...last, after };
}

/** The named session (the user's own), else the one this chat id has for the user, opened once. */
async function chatSession(c: Ctx, user: string, chatId: string, header: string | undefined) {
  if (header) return { sid: header, hub: await ownSession(c, user, header) };
  // Derived, not stored: the same chat id of the same user finds its session again; another user's finds another.
  const sid = `ses_${(await sha256Hex(`ai-sdk\u0000${c.var.principal.tenantId}\u0000${user}\u0000${chatId}`)).slice(0, 32)}`;
  const hub = await ownSession(c, user, sid).catch((err) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });
  return hub ? { sid, hub } : newSession(c, user, sid);
}
