/**
 * What the gate derives, per call, from how each argument met its floor: the standings a stored
 * answer (a standing rule or grant) is judged on (policy/unasked.ts), and the remedied arguments
 * the assessment words as reasons (policy/permissions.ts). Pure: the gate keeps the state.
 */
import type { ArgStanding, Remedied, Vouch } from "../policy/index.ts";
import type { Labeled } from "./values.ts";

/** At the top integrity, met by a match in this call (with who held it), or content's, remedied or not. */
export function argStandings(
  args: Readonly<Record<string, Labeled>>,
  vouchedBy: ReadonlyMap<string, Vouch>,
  top: string,
): Record<string, ArgStanding> {
  const out: Record<string, ArgStanding> = {};
  for (const [name, a] of Object.entries(args)) {
    const how = vouchedBy.get(name);
    out[name] =
      a.label.integrity === top
        ? { by: "top" }
        : how?.by === "match"
          ? { by: "match", origins: how.origins, contentMade: how.contentMade }
          : { by: "content" };
  }
  return out;
}

/** The arguments a remedy met, as the assessment words them: names and counts, never values. */
export function remediedOf(vouchedBy: ReadonlyMap<string, Vouch>): Remedied[] {
  return [...vouchedBy].map(([argument, how]) =>
    how.by === "match"
      ? { argument, by: how.by, source: how.source, candidates: how.candidates }
      : { argument, by: how.by },
  );
}
