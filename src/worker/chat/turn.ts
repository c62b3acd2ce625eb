import type { HubDO } from "../../objects/hub/index.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import type { HubEvent } from "../../runtime/index.ts";
import type { AppEnv } from "../env.ts";
import { consentLinkTokens } from "./consent-links.ts";
import { follow, owedQuery, recordTurn } from "./follow.ts";
import { latticeField } from "./lattice-field.ts";
import { type ConsentLinks, isFinal, pendingConsents } from "./render.ts";
import { newSession, ownSession, SESSION_HEADER, startQuery } from "./session.ts";
import { chatSessionId } from "./trusted-headers.ts";
import { answerText, heldText, reportedText } from "./turn-text.ts";

/**
 * One chat turn, whatever the protocol: the session it runs in, the query it follows (the new
 * message's, or an earlier turn's still open), its events, and its end (what the next turn owes, the
 * text, the `lattice` field). The protocol files (openai/, ai-sdk/) only encode what this yields, so
 * a new stream format is one encoder and one route, and every frontend follows the same two rules:
 *
 * - one session rule: X-Lattice-Session (the user's own) first, else the session the chat's id
 *   names for this user under the deployment's key (chatSessionId), else a new one;
 * - one rule for a request an earlier turn left open: while it waits for the user's answer it is
 *   asked again and the new message is not run (nor ever taken as an answer: a "yes" in the chat
 *   could be anyone's); once it ends (before this turn, or while this turn follows it on), its
 *   outcome is said first and the new message is run as this turn's query.
 */

type Ctx = {
  env: AppEnv["Bindings"];
  var: AppEnv["Variables"];
  req: { header(name: string): string | undefined; url: string };
};

/** The turn's session (see the session rule above); `chat` is the chat's id and where it was read. */
export async function turnSession(
  c: Ctx,
  user: string,
  chat: { name: string; value: string } | undefined,
): Promise<{ sid: string; hub: Rpc<HubDO> }> {
  const header = c.req.header(SESSION_HEADER);
  if (header) return { sid: header, hub: await ownSession(c, user, header) };
  const derived =
    chat && (await chatSessionId(c.env.LATTICE_KEY_SECRET, c.var.principal.tenantId, user, chat));
  return newSession(c, user, derived);
}

export interface OpenedTurn {
  hub: Rpc<HubDO>;
  sid: string;
  user: string;
  links: ConsentLinks;
  /**
   * The request's trace (middleware/trace): each query the turn starts continues it (a message held
   * back until an earlier query ends may start after the request's span has ended: it still hangs there).
   */
  trace: { traceparent?: string; tracestate?: string };
  /** The query the turn follows now (an earlier one still running, then the new message's). */
  qid: string;
  /** Its events up to this sequence number were shown by an earlier turn. */
  after: number;
  /** An earlier turn's query still open: the new message is not run while it is (`waiting`). */
  held: QueryView | null;
  /** The message to run once the held query ends; null when it waits for the user (or none was sent). */
  waiting: string | null;
  /** An earlier turn's query that ended: its outcome is said before the new message's answer. */
  earlier: { query: QueryView; after: number } | null;
}

/**
 * Where the turn that left a query open stopped showing it: at the request the user has answered
 * since (its latest), else at its first request still waiting; a query left running (a turn's time
 * ran out) is shown from its start. Progress made between turns is shown, not dropped.
 */
export function shownUpTo(query: QueryView): number {
  const settled = new Set(query.consents.filter((c) => c.status !== "pending").map((c) => c.id));
  const requests = query.trace.filter((e) => e.type === "consent_requested");
  const stop = requests.filter((e) => settled.has(String(e.data.consentId))).at(-1) ?? requests[0];
  return stop ? stop.seq - 1 : 0;
}

/** Opens the turn for the user's message `text` in the session (the open-turn rule above). */
export async function openTurn(
  session: Pick<OpenedTurn, "hub" | "sid" | "user" | "links" | "trace">,
  text: string,
): Promise<OpenedTurn> {
  const owed = await owedQuery(session.hub);
  if (owed && !isFinal(owed.status)) {
    // Still running (an answer let it go on): followed to its end first, then the message runs.
    const waiting = pendingConsents(owed).length ? null : text;
    return { ...session, qid: owed.id, after: shownUpTo(owed), held: owed, waiting, earlier: null };
  }
  const query = await startQuery(session.hub, text, session.trace);
  const earlier = owed && { query: owed, after: shownUpTo(owed) };
  return { ...session, qid: query.id, after: 0, held: null, waiting: null, earlier };
}

/**
 * The turn's events, each once and in order: an ended earlier query's made since a turn last showed
 * it, then the followed query's until it stops the turn; a held query that ends meanwhile is
 * reported and the waiting message is run and followed in turn (`turn` says so: its `qid` moves on).
 * Returns the query followed last, as it then is.
 */
export async function* turnEvents(
  turn: OpenedTurn,
  signal?: AbortSignal,
): AsyncGenerator<HubEvent, QueryView> {
  if (turn.earlier) for (const e of turn.earlier.query.trace) if (e.seq > turn.earlier.after) yield e;
  const query = yield* follow(turn.hub, turn.qid, turn.after, signal);
  if (!turn.waiting || !isFinal(query.status) || signal?.aborted) return query;
  const started = await startQuery(turn.hub, turn.waiting, turn.trace);
  Object.assign(turn, {
    qid: started.id,
    after: 0,
    held: null,
    waiting: null,
    earlier: { query, after: query.trace.at(-1)?.seq ?? 0 },
  });
  return yield* follow(turn.hub, started.id, 0, signal);
}

/** The turn's end: what the next turn owes, the text (with fresh consent links) and the `lattice` field. */
export async function finishTurn(
  c: Ctx,
  turn: OpenedTurn,
  query: QueryView,
): Promise<{ text: string; lattice: ReturnType<typeof latticeField> & { earlier?: unknown } }> {
  await recordTurn(turn.hub, query);
  // Reported now: its marker goes (recordTurn moved it to the new query, or left it on the earlier one).
  if (turn.earlier) await turn.hub.settleTurn(turn.earlier.query.id);
  const links = { ...turn.links, tokens: await consentLinkTokens(c, turn.user, turn.sid, query) };
  const text = turn.held
    ? heldText(query, links)
    : turn.earlier
      ? reportedText(turn.earlier.query, query, links)
      : answerText(query, links);
  const lattice = latticeField(query, turn.sid);
  const before = turn.earlier?.query;
  return {
    text,
    lattice: before ? { ...lattice, earlier: { queryId: before.id, status: before.status } } : lattice,
  };
}
