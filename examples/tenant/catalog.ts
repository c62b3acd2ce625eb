/**
 * The demo tenant's catalog, as its admin writes it: one entry per kind of functionality, in the
 * admin's words. The request and response schemas are the reviewed apps' schemas with their prose
 * (descriptions, titles) stripped; everything a planner reads here is the admin's. Quoting and
 * booking are each one entry both ride apps serve: a comparison asks every app for a quote
 * (`providers: "all"`), and the hub asks the user which app books. Importable from Node (the
 * seeder) and from Workers.
 */
import type { CatalogView } from "../../src/apps/catalog-view.ts";
import type { FunctionalityInput, ManifestInput } from "../../src/apps/manifest.ts";

export interface CatalogEntryInput {
  name: string;
  description: string;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  irreversible: boolean;
  output?: { confidentiality: string; integrity?: string };
  destinations: string[];
  view?: CatalogView;
}

/** The admin's descriptions, by entry name. */
const DESCRIPTIONS: Record<string, string> = {
  "mail.search": "Search the user's mailbox; returns matching messages.",
  "notes.search_notes": "Search the user's notes; returns the matching notes.",
  "notes.read_note": "Read one of the user's notes by id.",
  "notes.add_note": "Add a note with a title and a body to the user's notes.",
  "mail.read": "Read one message of the user's mailbox by id.",
  "mail.send": "Send an email from the user's mailbox.",
  "mail.delete": "Delete one message from the user's mailbox.",
  "drive.list": "List the files in the user's cloud drive.",
  "drive.read": "Read one file of the user's cloud drive by id.",
  "drive.share": "Share one file of the user's cloud drive with someone.",
  "contacts.lookup": "Look up one of the user's contacts by name or role.",
  "contacts.list": "List the user's contacts.",
  "calendar.list_events": "List the user's calendar events on a date.",
  "calendar.create_event": "Create an event in the user's calendar and invite participants.",
  "bank.balance": "The user's bank balance.",
  "bank.transactions": "The user's recent bank transactions.",
  "bank.send_money": "Send money from the user's bank account.",
  "bank.schedule_transfer": "Schedule a transfer from the user's bank account for a later date.",
  "bank.list_scheduled": "List the transfers the user has scheduled.",
  "bank.update_password": "Change the user's online banking password.",
  "ride.quote": "A price quote for a ride between two places.",
  "ride.book": "Book a ride between two places.",
  "travel.search_flights": "Search flights between two cities on a date.",
  "travel.book": "Book a flight for a passenger.",
  "health.symptom_check": "Check symptoms against the user's health service.",
  "health.record": "The user's health record for one condition.",
  "health.records": "All of the user's health records.",
  "writer.write": "Write a text from a prompt.",
  "chat.channels": "List the channels of the user's team chat.",
  "chat.read_channel": "Read the messages of one team chat channel.",
  "chat.send_message": "Send a message in the user's team chat.",
  "chat.invite_user": "Invite someone to the user's team chat by email.",
  "inboxpilot.summarize_inbox": "Summarise the user's inbox (an assistant app).",
  "inboxpilot.send_update": "Have the inbox assistant send an update about a task.",
  "inboxpilot.pay_invoice": "Have the inbox assistant pay an invoice.",
};

/** Where data, messages or money go, by entry: what assessments and the visor treat as destinations. */
const DESTINATIONS: Record<string, string[]> = {
  "mail.send": ["to"],
  "drive.share": ["with"],
  "calendar.create_event": ["participants[]"],
  "bank.send_money": ["recipient"],
  "bank.schedule_transfer": ["recipient"],
  "travel.book": ["passenger"],
  "chat.send_message": ["channel", "user"],
  "chat.invite_user": ["email"],
  "inboxpilot.pay_invoice": ["recipient"],
};

/** How each consent reads for a person: a mail, a payment, a booking, a share (catalog-view.ts). */
const VIEWS: Record<string, CatalogView> = {
  "mail.send": { kind: "mail", to: "to", subject: "subject", body: "body" },
  "bank.send_money": {
    kind: "payment",
    payee: "payee",
    iban: "recipient",
    amount: "amount",
    currency: "currency",
    reference: "subject",
  },
  "bank.schedule_transfer": { kind: "payment", iban: "recipient", amount: "amount", reference: "subject" },
  "inboxpilot.pay_invoice": { kind: "payment", iban: "recipient", amount: "amount" },
  "ride.book": { kind: "booking", from: "from", to: "to" },
  "travel.book": { kind: "booking", what: "flightId" },
  "calendar.create_event": { kind: "booking", what: "title", when: "date" },
  "drive.share": { kind: "share", what: "id", with: "with" },
};

/** Functionalities with a shared entry (the hub asks which app serves a step). */
const SHARED: Record<string, string> = {
  "swiftride.quote": "ride.quote",
  "cheapcab.quote": "ride.quote",
  "swiftride.book": "ride.book",
  "cheapcab.book": "ride.book",
};

/** Keywords that carry an app's prose or sample values, not constraints: the admin drops them. */
const PROSE = new Set(["description", "title", "examples", "default", "$comment"]);

/** Keywords whose value maps names to subschemas, holds one subschema, or lists subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMA_ONE = new Set([
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const bareAny = (v: unknown): unknown => (isObject(v) ? bare(v) : v);

/** A schema without the app's prose (see PROSE), at every level: every subschema keyword walked. */
export function bare(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (PROSE.has(k)) continue;
    if (SCHEMA_MAPS.has(k) && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, bareAny(sub)]));
    } else if (SCHEMA_ONE.has(k)) out[k] = bareAny(v);
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(bareAny);
    else out[k] = v;
  }
  return out;
}

const entryName = (app: string, fn: string) => SHARED[`${app}.${fn}`] ?? `${app}.${fn}`;

/** The entry an admin writes for one functionality: their own name and words, the schemas bare. */
export function entryOf(
  name: string,
  description: string,
  fn: FunctionalityInput,
  destinations: string[],
): CatalogEntryInput {
  return {
    name,
    description,
    request: bare(fn.request),
    response: bare(fn.response),
    irreversible: fn.irreversible ?? false,
    ...(fn.output && { output: fn.output }),
    destinations,
    ...(VIEWS[name] && { view: VIEWS[name] }),
  };
}

/** The catalog for the given (clean, reviewed) manifests: every functionality with an admin description. */
export function demoCatalog(manifests: readonly ManifestInput[]): CatalogEntryInput[] {
  const entries = new Map<string, CatalogEntryInput>();
  for (const m of manifests) {
    for (const fn of m.functionalities ?? []) {
      const name = entryName(m.name, fn.name);
      const description = DESCRIPTIONS[name];
      if (!description || entries.has(name)) continue;
      entries.set(name, entryOf(name, description, fn, DESTINATIONS[name] ?? []));
    }
  }
  return [...entries.values()];
}

/** The bindings an admin gives an app at approval: each functionality to its entry, where there is one. */
export function demoBindings(
  manifest: ManifestInput,
  catalog: readonly CatalogEntryInput[],
): Record<string, string> {
  return Object.fromEntries(
    (manifest.functionalities ?? [])
      .map((fn) => [fn.name, entryName(manifest.name, fn.name)] as const)
      .filter(([, entry]) => catalog.some((e) => e.name === entry)),
  );
}
