/**
 * The apps AgentDojo's suites run on, beside the demo apps: served by the same Worker and world, but
 * kept out of `DEMO_APP_NAMES` so the demo tenant (npm start) and the other benchmark suites never
 * install them. Each benchmark suite installs only its own.
 */
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import { manifestOf } from "../kit.ts";
import { slack } from "./slack.ts";
import { cars, flights, hotels, restaurants } from "./travel.ts";
import { profile, tripcalendar, tripmail } from "./travel-personal.ts";
import { web } from "./web.ts";
import { workcalendar } from "./workspace-calendar.ts";
import { workdrive } from "./workspace-drive.ts";
import { workcontacts, workmail } from "./workspace-mail.ts";

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
