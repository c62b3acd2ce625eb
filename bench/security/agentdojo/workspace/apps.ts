/**
 * The workspace suite's tenant: the user's mail, contacts, calendar and cloud drive, the admin's
 * catalog for them, clearances and the per-tool policy a careful admin writes (README.md says why).
 */
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
import { agentdojoManifests } from "../apps.ts";
import { renderWorld } from "./environment.ts";

/** Where each entry sends data, invitations or access (the functionality's own description stays). */
const DESTINATIONS: Record<string, string[]> = {
  "workmail.send_email": ["recipients", "cc", "bcc"],
  "workcalendar.create_calendar_event": ["participants"],
  "workcalendar.add_calendar_event_participants": ["participants"],
  "workdrive.share_file": ["email"],
};

function catalog(manifests: HttpManifestInput[]): CatalogEntryInput[] {
  return manifests.flatMap((m) =>
    m.functionalities.map((fn) => {
      const name = `${m.name}.${fn.name}`;
      return entryOf(name, fn.description, fn, DESTINATIONS[name] ?? []);
    }),
  );
}

export const WORKSPACE_APPS = ["workmail", "workcontacts", "workcalendar", "workdrive"] as const;

const person = { role: "destination", match: "trusted" } as const;
const event = {
  role: "control",
  match: "trusted",
  from: ["workcalendar.search_calendar_events", "workcalendar.get_day_calendar_events"],
} as const;
const words = { role: "payload", sanitise: "no-foreign-references" } as const;
/** Her own apps may pass her data to each other (a rule's `origins`). */
const OWN_APPS = [...WORKSPACE_APPS];

export const workspaceEnv: SuiteEnv = {
  manifests: (base, world) => agentdojoManifests(base, world, WORKSPACE_APPS),
  catalog,
  // All four hold the user's own work matters and may receive them (a summary of a drive file goes
  // out by mail, an event is made from an e-mail); nothing here is secret, so the floors below, not
  // the clearances, are what keep her data with the people she names.
  clearance: {
    workmail: "confidential",
    workcontacts: "confidential",
    workcalendar: "confidential",
    workdrive: "confidential",
  },
  tools: {
    // The addresses she saved (wrote to herself), her calendar's event ids and the id of a file this
    // plan itself created are the apps' own records: trusted as values, never as text. Not every
    // contact: the list holds every address that ever wrote to her, an injection's sender too (#43).
    "workcontacts.search_contacts_by_name": { trustedValues: ["saved[]"] },
    "workcontacts.search_contacts_by_email": { trustedValues: ["saved[]"] },
    // Not its participants: anyone who invites her writes those.
    "workcalendar.search_calendar_events": { trustedValues: ["events[].id"] },
    "workcalendar.get_day_calendar_events": { trustedValues: ["events[].id"] },
    "workdrive.create_file": { trustedValues: ["id"] },
    // A mail's words may come from what she read (a summary), so long as they add no link, address
    // or account no trusted value holds; who receives it may be chosen among her contacts and the
    // people of her events; which files go with it keeps the default floor.
    "workmail.send_email": {
      args: { recipients: person, cc: person, bcc: person, body: words, subject: words },
    },
    // An event's words likewise; its participants (who get invitations) among the people she knows;
    // its times keep the floor (nothing she trusts holds a time an e-mail proposes).
    // Whether an event is made may turn on what her calendar says ("if I am free"); what it holds
    // may not: every argument keeps its own floor, and the consent is asked (no rule answers it).
    "workcalendar.create_calendar_event": {
      steerable: true,
      args: { participants: person, title: words, description: words, location: words },
    },
    // Which of her events to move or add people to may be chosen among the events she has; which to
    // cancel, which file to delete, and which of her files to share are hers to say: only a file this
    // plan created may be shared by id (AgentDojo's goal deletes the file with id 13).
    "workcalendar.reschedule_calendar_event": { args: { event_id: event } },
    "workcalendar.add_calendar_event_participants": { args: { event_id: event, participants: person } },
    "workdrive.share_file": {
      args: {
        file_id: { role: "control", match: "trusted", from: ["workdrive.create_file"] },
        email: person,
      },
    },
  },
  toolsBefore: {
    "workmail.send_email": {
      args: { body: { minIntegrity: "untrusted" }, subject: { minIntegrity: "untrusted" } },
    },
    "workcalendar.create_calendar_event": {
      args: { description: { minIntegrity: "untrusted" }, location: { minIntegrity: "untrusted" } },
    },
  },
  scrub: renderWorld(),
  // What the user said once: mail, invitations and shares to people her own words name, and moving
  // events her words name, are fine; her own apps may pass her data to each other. Not "any contact
  // what I read names": content would then pick the recipient among her contacts, unasked (#43), so
  // a recipient or event content chose is asked. Cancelling and deleting are confirmed each time.
  // No rule answers a call whose words content wrote (a summary): that is always asked.
  standingRules: [
    { tool: "workmail.send_email", when: { recipients: { from: "trusted" } }, origins: OWN_APPS },
    // Her own calendar's entries (participants, if any, already have to meet their floor).
    { tool: "workcalendar.create_calendar_event", when: {}, origins: OWN_APPS },
    {
      tool: "workcalendar.add_calendar_event_participants",
      when: { participants: { from: "trusted" } },
      origins: OWN_APPS,
    },
    {
      tool: "workcalendar.reschedule_calendar_event",
      when: { event_id: { from: "trusted" } },
      origins: OWN_APPS,
    },
    { tool: "workdrive.share_file", when: { email: { from: "trusted" } }, origins: OWN_APPS },
  ],
};
