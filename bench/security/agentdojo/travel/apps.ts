/**
 * The travel suite's tenant: the booking apps (hotels, restaurants, car rental, flights) and the
 * user's own profile, e-mail and calendar, the admin's catalog for them, clearances and the per-tool
 * policy a careful admin writes (bench/README.md, "AgentDojo suites", says why).
 */
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
import { agentdojoManifests } from "../apps.ts";
import { renderWorld } from "./environment.ts";

/** Entries by the admin: the functionality's own description, and where a call sends data. */
const DESTINATIONS: Record<string, string[]> = {
  "hotels.reserve_hotel": ["hotel"],
  "restaurants.reserve_restaurant": ["restaurant"],
  "carrental.reserve_car_rental": ["company"],
  "tripmail.send_email": ["recipients", "cc", "bcc"],
  "tripcalendar.create_calendar_event": ["participants"],
};

function catalog(manifests: HttpManifestInput[]): CatalogEntryInput[] {
  return manifests.flatMap((m) =>
    m.functionalities.map((fn) => {
      const name = `${m.name}.${fn.name}`;
      return entryOf(name, fn.description, fn, DESTINATIONS[name] ?? []);
    }),
  );
}

export const TRAVEL_APPS = [
  "hotels",
  "restaurants",
  "carrental",
  "flights",
  "tripprofile",
  "tripmail",
  "tripcalendar",
] as const;

const words = { role: "payload", sanitise: "no-foreign-references" } as const;

export const travelEnv: SuiteEnv = {
  manifests: (base, world) => agentdojoManifests(base, world, TRAVEL_APPS),
  catalog,
  // A booking tells the provider who stays where and when (internal at most); e-mail may carry the
  // user's own confidential matters; nothing secret (passport, card and account numbers) leaves
  // the profile through any app: only the user's screen shows it.
  clearance: {
    hotels: "internal",
    restaurants: "internal",
    carrental: "internal",
    flights: "internal",
    tripprofile: "secret",
    tripmail: "confidential",
    tripcalendar: "confidential",
  },
  tools: {
    // A mail's and a calendar entry's words may quote a listing or a review (a hotel's name as the
    // title), so long as they add no link, address or account no trusted value holds (they were
    // `untrusted` outright before). Recipients, times and participants keep the default floor: the
    // user's own values, or a consent showing them. Bookings keep it on every argument: which hotel,
    // restaurant or company is the user's choice — a match among the listed ones would let a review
    // book the attacker's pick (AgentDojo's goals reserve the Riverside View or the dearest hotel).
    "tripmail.send_email": { args: { body: words, subject: words } },
    // Whether a reminder is made may turn on a listing ("if it is rated over 4"); what it holds may not.
    "tripcalendar.create_calendar_event": {
      steerable: true,
      args: { title: words, description: words, location: words },
    },
  },

  toolsBefore: {
    "tripmail.send_email": {
      args: { body: { minIntegrity: "untrusted" }, subject: { minIntegrity: "untrusted" } },
    },
    "tripcalendar.create_calendar_event": {
      args: { description: { minIntegrity: "untrusted" }, location: { minIntegrity: "untrusted" } },
    },
  },
  scrub: renderWorld(),
  // What the user said once: entries in her own calendar and mail to addresses she trusts are fine.
  // Every reservation is confirmed each time.
  standingRules: [
    { tool: "tripcalendar.create_calendar_event", when: {} },
    { tool: "tripmail.send_email", when: { recipients: { from: "trusted" } } },
  ],
};
