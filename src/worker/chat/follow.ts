import type { HubDO } from "../../objects/hub/index.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { Rpc } from "../../objects/rpc.ts";
import { ApiError } from "../errors.ts";
import { isFinal, pendingConsents } from "./render.ts";

/** How long one chat turn follows its query; past it, the turn says the request is still going. */
const TURN_TIMEOUT_MS = 60_000;
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/** A query stops a chat turn when it ends or asks the user (a spoke's request asks while running). */
const stopsTurn = (query: QueryView) => isFinal(query.status) || pendingConsents(query).length > 0;

/** The query as it is now; one the hub does not know is a 404. */
export async function readQuery(hub: Rpc<HubDO>, qid: string): Promise<QueryView> {
  const query = await hub.query(qid);
  if (!query) throw new ApiError(404, "query_not_found", { message: "query not found" });
  return query;
}

/**
 * The query's views until it stops the turn or TURN_TIMEOUT_MS passes, read with a backoff (25 ms
 * doubling to 500 ms): quick steps are seen at once, a slow app costs few reads.
 */
export async function* views(hub: Rpc<HubDO>, qid: string): AsyncGenerator<QueryView> {
  const deadline = Date.now() + TURN_TIMEOUT_MS;
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(MAX_POLL_MS, wait * 2)) {
    const query = await readQuery(hub, qid);
    yield query;
    if (stopsTurn(query) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The query once it stops the turn (or at the deadline). */
export async function settle(hub: Rpc<HubDO>, qid: string): Promise<QueryView> {
  let last: QueryView | undefined;
  for await (const query of views(hub, qid)) last = query;
  return last!;
}

/** Remembers an open query for the next turn, or forgets it once the turn has shown how it ended. */
export async function recordTurn(hub: Rpc<HubDO>, query: QueryView): Promise<void> {
  if (isFinal(query.status)) await hub.settleTurn(query.id);
  else await hub.oweTurn(query.id);
}

/** The query an earlier turn left open, unless it has been reported since (or is gone). */
export async function owedQuery(hub: Rpc<HubDO>): Promise<QueryView | null> {
  const qid = await hub.owedTurn();
  if (!qid) return null;
  return readQuery(hub, qid).catch(() => null);
}
