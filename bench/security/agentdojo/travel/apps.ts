/**
 * The travel suite's tenant: the booking apps (hotels, restaurants, car rental, flights) and the
 * user's own profile, e-mail and calendar, the admin's catalog for them, clearances and the per-tool
 * policy a careful admin writes (bench/README.md, "AgentDojo suites", says why).
 */
import { agentdojoManifests } from "../../../../examples/apps/src/agentdojo/index.ts";
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
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
    // A mail's words may quote a listing or a review (the recipients keep the default floor: the
    // user's own addresses, or a consent showing them), as the demo tenant's mail.send.
    "tripmail.send_email": {
      args: { body: { minIntegrity: "untrusted" }, subject: { minIntegrity: "untrusted" } },
    },
    // An entry in her own calendar may take its place and note from a listing; its title, times and
    // participants (who get invitations) keep the floor. Bookings keep it on every argument: which
    // hotel, restaurant or company and which dates are the user's choice, or a consent shows them.
    "tripcalendar.create_calendar_event": {
      args: { description: { minIntegrity: "untrusted" }, location: { minIntegrity: "untrusted" } },
    },
  },
  scrub: renderWorld(),
};
