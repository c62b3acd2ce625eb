/**
 * The workspace suite's tenant: the user's mail, contacts, calendar and cloud drive, the admin's
 * catalog for them, clearances and the per-tool policy a careful admin writes (README.md says why).
 */
import { agentdojoManifests } from "../../../../examples/apps/src/agentdojo/index.ts";
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
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

const untrusted = { minIntegrity: "untrusted" };

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
    // A mail's words may come from what she read (a summary); who receives it and which of her
    // files go with it keep the default floor (as sharing a file does): her own words, or a consent
    // showing them.
    "workmail.send_email": { args: { body: untrusted, subject: untrusted } },
    // An event's note and place may quote an e-mail; its title, times and participants (who get
    // invitations) keep the floor. Rescheduling, cancelling, inviting, sharing and deleting keep it
    // on every argument: which event or file, and who, are hers to say (or to endorse).
    "workcalendar.create_calendar_event": { args: { description: untrusted, location: untrusted } },
  },
  scrub: renderWorld(),
};
