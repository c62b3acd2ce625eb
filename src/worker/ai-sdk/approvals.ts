import type { Answerer, HubDO } from "../../objects/hub/index.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { readQuery } from "../chat/follow.ts";
import { ApiError } from "../errors.ts";
import { type ApprovalScope, consentOf } from "./approval-id.ts";
import { approvalAnswers, type ChatRequest } from "./request.ts";
import type { Follow } from "./stream.ts";

/** Approval answers one request may carry: a turn answers the consents of one query. */
const MAX_ANSWERS = 20;

/** The query to follow on and from where, with what the client must be told first. */
type Continuation = { qid: string; after: number } & Pick<Follow, "known" | "notes" | "closing">;

/**
 * Answers the open consents that the last assistant message's approvals name, and says which query
 * to follow on. An approval for a consent settled meanwhile (in the console, or expired) is followed
 * all the same, so the chat sees the outcome. Kinds an approval cannot answer (a sign-in, a choice
 * among apps) stay pending, with a note pointing to the consent's page. Null when nothing is answered.
 */
export async function answerApprovals(
  hub: Rpc<HubDO>,
  scope: ApprovalScope,
  body: ChatRequest,
  by: Answerer,
): Promise<Continuation | null> {
  const answers = approvalAnswers(body);
  if (!answers.length) return null;
  if (answers.length > MAX_ANSWERS) {
    throw new ApiError(400, "too_many_approvals", {
      message: `at most ${MAX_ANSWERS} approval answers per request`,
    });
  }
  let next = null as (Continuation & { answeredIds: string[] }) | null;
  for (const answer of answers) {
    const consentId = await consentOf(scope, answer.id);
    if (!consentId) {
      throw new ApiError(400, "invalid_approval", {
        message: "an approval id was not issued for this session",
        details: [{ field: "body.messages", message: `unknown approval ${answer.id.slice(0, 80)}` }],
      });
    }
    const consent = (await hub.consents({})).find((x) => x.id === consentId);
    if (!consent) continue;
    if (next?.qid !== consent.queryId) {
      next = { qid: consent.queryId, after: 0, known: new Set(), notes: [], closing: [], answeredIds: [] };
    }
    const toolCallId = consent.stepId || consent.id;
    next.known.add(toolCallId);
    // Each answered tool part gets an end here or from the query's own events, or the client,
    // still holding an answered approval, would send it again and again.
    if (consent.status !== "pending") {
      next.notes!.push(`This was answered already (${consent.status}).`);
      next.answeredIds.push(consentId);
      if (consent.status !== "allowed") next.closing!.push({ type: "tool-output-denied", toolCallId });
      continue;
    }
    const multiple = consent.kind === "app_selection" && (consent.options?.length ?? 0) > 1;
    if (consent.kind === "authorize" || multiple) {
      const errorText =
        consent.kind === "authorize"
          ? "Sign in to the app on the consent's page: approving here cannot do it."
          : "Choose the app on the consent's page: approving here cannot say which.";
      next.closing!.push({ type: "tool-output-error", toolCallId, errorText, dynamic: true });
      continue;
    }
    const decision = answer.approved ? ("allow" as const) : ("deny" as const);
    // A denial is for this request only; an approval stands as long as the client asked, if offered.
    const lasting = decision === "deny" ? "once" : answer.scope;
    const result = await hub.answerConsent(consentId, { decision, scope: lasting }, by);
    if (!result.ok && result.code === "scope_not_allowed") {
      // Refused, not narrowed: the user asked for more than this consent may give, so nothing is answered.
      const allowed = (result.details as { allowed: string[] }).allowed.join(", ");
      const errorText = `Not answered: this consent can be allowed only ${allowed}, not ${lasting}. Approve it again for once, or answer it on its page.`;
      next.closing!.push({ type: "tool-output-error", toolCallId, errorText, dynamic: true });
      continue;
    }
    if (result.ok && decision === "deny") next.closing!.push({ type: "tool-output-denied", toolCallId });
    if (result.ok) next.answeredIds.push(consentId);
  }
  if (!next) return null;
  // Follow on from the latest answer, or from now: the client holds what it was shown before.
  const query = await readQuery(hub, next.qid);
  const answeredAt = query.trace.filter(
    (e) => e.type === "consent_answered" && next.answeredIds.includes(String(e.data.consentId)),
  );
  const after = answeredAt.at(-1)?.seq ?? query.trace.at(-1)?.seq ?? 0;
  const { answeredIds: _, ...continuation } = next;
  return { ...continuation, after };
}
