/**
 * The apps AgentDojo's suites run on, beside the demo apps: served by the same Worker and world, but
 * kept out of `DEMO_APP_NAMES` so the demo tenant (npm start) and the other benchmark suites never
 * install them. Each benchmark suite installs only its own.
 */
import { manifestOf } from "../../../examples/apps/src/kit.ts";
import type { HttpManifestInput } from "../../../src/apps/manifest.ts";
import { slack } from "./slack/apps-slack.ts";
import { web } from "./slack/apps-web.ts";
import { profile, tripcalendar, tripmail } from "./travel/apps-personal.ts";
import { cars, flights, hotels, restaurants } from "./travel/apps-travel.ts";
import { workcalendar } from "./workspace/apps-calendar.ts";
import { workdrive } from "./workspace/apps-drive.ts";
import { workcontacts, workmail } from "./workspace/apps-mail.ts";

export const AGENTDOJO_APPS = {
  slack,
  web,
  hotels,
  restaurants,
  carrental: cars,
  flights,
  tripprofile: profile,
  tripmail,
  tripcalendar,
  workmail,
  workcontacts,
  workcalendar,
  workdrive,
};
export type AgentDojoAppName = keyof typeof AGENTDOJO_APPS;
export const AGENTDOJO_APP_NAMES = Object.keys(AGENTDOJO_APPS) as AgentDojoAppName[];

/** The manifests of the named apps, with `endpoint` = `${baseUrl}/w/${world}/${app}`. */
export function agentdojoManifests(
  baseUrl: string,
  world: string,
  names: readonly AgentDojoAppName[],
): HttpManifestInput[] {
  const base = baseUrl.replace(/\/+$/, "");
  return names.map((n) => manifestOf(AGENTDOJO_APPS[n], `${base}/w/${encodeURIComponent(world)}/${n}`));
}
