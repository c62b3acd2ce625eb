/**
 * Which `trustedValues` paths may vouch: only values the user or the app's own bookkeeping wrote
 * (a channel that exists, an event's id, a contact she saved), never who wrote something. A
 * sender is authenticated, not trusted: whoever injects content is its sender, its author, the
 * owner of what it shares, one of its event's attendees. Trusting that field puts the attacker's
 * address among the values a `match` may take, so a hijacked plan writes to them unasked (#43).
 *
 * One predicate for both places: a policy PUT refuses such a path (policy-schema.ts), and the
 * runtime takes no leaves from one, so a policy stored before the refusal vouches for nothing there.
 */
import { leavesAt } from "./destinations.ts";

/** Names in a path that say who wrote, sent, owns or was invited to something: a closed list. */
export const AUTHOR_NAMES = [
  "sender",
  "from",
  "author",
  "owner",
  "participants",
  "attendees",
  "members",
  "reply_to",
] as const;
export type AuthorName = (typeof AUTHOR_NAMES)[number];

/** Case and `_`/`-` are spelling, not meaning: `replyTo`, `Reply-To` and `reply_to` are one name. */
const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
const FOLDED = new Map<string, AuthorName>(AUTHOR_NAMES.map((n) => [fold(n), n]));

/**
 * The author name a `trustedValues` path ends in (`messages[].sender` → `sender`) or passes
 * through (`messages[].sender.email`: the sender's address all the same), or null when the path
 * may vouch.
 */
export function authoredName(path: string): AuthorName | null {
  for (const name of path.split(".").reverse()) {
    const found = FOLDED.get(fold(name.replace(/\[\]$/, "")));
    if (found) return found;
  }
  return null;
}

/** Why a PUT refuses the path, naming the field: the admin reads it in the 400's details. */
export function authoredPathMessage(name: AuthorName): string {
  return `a path through "${name}" names who wrote, sent, owns or joined something, and whoever injects content is one of those: trustedValues take only what the user or the app's own bookkeeping wrote (a channel, an id, a contact she saved)`;
}

/**
 * The leaves a tool answer's `trustedValues` paths vouch for. A path through an author name
 * gives none, whatever policy listed it: a document stored before PUT refused such paths still
 * parses (stored documents must), so the refusal is enforced here as well.
 */
export function trustedLeaves(value: unknown, paths: readonly string[]): Array<string | number> {
  return paths.filter((p) => authoredName(p) === null).flatMap((p) => leavesAt(value, p));
}
