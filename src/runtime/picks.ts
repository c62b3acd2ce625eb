import * as z from "zod";
import type { CatalogEntry as CatalogEntryDoc } from "../apps/catalog.ts";
import type { ServingAppInfo } from "../contracts.ts";
import type { Policy } from "../policy/index.ts";
import { planningOf } from "./snapshot.ts";

/**
 * The apps a frontend picked for a query, in a field of its own: what an `app_selection` is about
 * (the catalog entry, or in apps mode the category) → the name of the app that serves it, or the
 * names of several (a comparison: in apps mode each planned step runs on its own app if it is one of
 * them). It is the only way a query chooses an app in the user's place; no word of its text does.
 */
export const MAX_PICKS = 32;

const AppName = z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, "an app's name");
export const AppPicksSchema = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_-]{0,63}\.[a-z][a-z0-9_-]{0,63}$/, "looks like ride.book"),
    z.union([AppName, z.array(AppName).min(1).max(8)]),
  )
  .refine((picks) => Object.keys(picks).length <= MAX_PICKS, `at most ${MAX_PICKS} picks`);
export type AppPicks = Readonly<Record<string, string | readonly string[]>>;

/** The apps picked for `choice` (none when nothing was). */
export function pickedFor(picks: AppPicks, choice: string): readonly string[] {
  const pick = Object.hasOwn(picks, choice) ? picks[choice] : undefined;
  return pick === undefined ? [] : typeof pick === "string" ? [pick] : pick;
}

/**
 * Where `picks` do not hold in the tenant's world as the query is admitted: a choice no serving app
 * offers, or an app that does not serve it. Checked against every name, not the session's roles: a
 * pick for a name the roles keep from the planner is never used, and refusing it would tell nothing.
 */
export function picksProblems(
  world: { policy: Policy; catalog: readonly CatalogEntryDoc[]; apps: readonly ServingAppInfo[] },
  picks: AppPicks,
): Array<{ choice: string; message: string }> {
  if (!Object.keys(picks).length) return [];
  const { snapshot } = planningOf({ ...world, artifacts: [], allowed: null });
  const serving = new Map<string, Set<string>>();
  for (const [name, targets] of Object.entries(snapshot.targets)) {
    const choice = snapshot.choices[name] ?? name;
    const apps = serving.get(choice) ?? new Set();
    for (const t of targets) apps.add(t.app);
    serving.set(choice, apps);
  }
  const problems: Array<{ choice: string; message: string }> = [];
  for (const choice of Object.keys(picks)) {
    const apps = serving.get(choice);
    if (!apps) problems.push({ choice, message: "no serving app offers this" });
    else if (!pickedFor(picks, choice).every((app) => apps.has(app))) {
      problems.push({ choice, message: "an app picked does not serve it" });
    }
  }
  return problems;
}

/** Whether two queries picked the same apps (an Idempotency-Key's retry must repeat both text and picks). */
export function samePicks(a: AppPicks, b: AppPicks): boolean {
  const keys = Object.keys(a);
  const same = (k: string) => pickedFor(a, k).join() === pickedFor(b, k).join();
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(k));
}
