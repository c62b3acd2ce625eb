/**
 * When a stored answer — a standing rule or a standing `data_share` grant — may stand in for the
 * user's "yes": the one invariant asking less rests on, decided on labels and never on remedies.
 *
 * The pc and every argument are at the top integrity (the user's words or a source of the user's
 * integrity), except at most one argument met by `match` to a trusted value that content did not
 * make. Any other argument below the top is content's, whether a remedy met its floor (a sanitised
 * body), its floor was low enough to need none (a body under `minIntegrity: "untrusted"`), or it
 * was matched too: content may steer one choice among trusted values, never that and anything
 * else, and never write what the user is not asked about.
 */

/** How the gate found one argument's value, for the stored answers' sake. */
export type ArgStanding =
  /** Its runtime label has the top integrity. */
  | { readonly by: "top" }
  /**
   * Below the top, met by `match`: equal to trusted values held by `origins` (`query` for the
   * user's words, a tool whose `trustedValues` hold it, or null for a bound value at its label).
   * `contentMade`: one of those is the id of a record a call made from content (a file whose words
   * a q-llm wrote): it designates content, so it counts as content here.
   */
  | { readonly by: "match"; readonly origins: readonly (string | null)[]; readonly contentMade: boolean }
  /** Below the top and not matched: content wrote it, remedied or not. */
  | { readonly by: "content" };

/** Why a stored answer may not stand in for the user: a closed list, audited by name. */
export type UnaskedRefusal = "pc_steered" | "content_argument" | "content_made_record" | "two_matched";

/** Null when a stored answer may answer for the user, else why not. */
export function unaskedRefusal(
  pcTop: boolean,
  args: Readonly<Record<string, ArgStanding>>,
): UnaskedRefusal | null {
  if (!pcTop) return "pc_steered";
  let matched = 0;
  for (const standing of Object.values(args)) {
    if (standing.by === "content") return "content_argument";
    if (standing.by !== "match") continue;
    if (standing.contentMade) return "content_made_record";
    matched++;
  }
  return matched > 1 ? "two_matched" : null;
}
