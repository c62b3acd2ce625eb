import * as z from "zod";

/**
 * A consent as a person reads it: a typed view (a mail as to/subject/body, a payment as
 * payee/IBAN/amount, a booking as from/to/when, a share as what and with whom) built by the hub
 * from the catalog entry and the call's labeled arguments. Every shown value says where it came
 * from, and the warnings name in Lattice's words what a careful reader could not see (a lookalike
 * letter, an invisible character, an IBAN none of the user's payees has). Every frontend renders
 * this one structure: the console, the link page, the OpenAI text, the AI SDK approval.
 *
 * Words in `title`, `label` and `reason` are Lattice's (or the tenant admin's catalog); `value`,
 * `app` and option descriptions are not, and a renderer shows them as quoted data.
 */

/** The shapes a view takes; `action` lists the call's arguments when no other shape fits. */
export const VIEW_KINDS = ["mail", "payment", "booking", "share", "action", "app_choice", "sign_in"] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

/**
 * Where a shown value came from: the user's words, an app's answer, a model's reading of an app's
 * answer, the user's saved data, or a value the planner chose. Only `user` is not highlighted.
 */
export const SOURCE_KINDS = ["user", "app", "model", "saved", "planner"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** What Lattice calls out about a value, each in a closed code with words a person reads. */
export const WARNING_CODES = [
  /** Letters of more than one script in one word ("Раypal"). */
  "mixed_scripts",
  /** A zero-width, bidi or other invisible character. */
  "invisible_characters",
  /** A character that looks like an ASCII one: Cyrillic Е, full-width digits, a no-break space. */
  "lookalike_characters",
  /** Equal to a trusted value except for lookalike or invisible characters. */
  "near_trusted_value",
  /** An IBAN none of the user's saved payees (the trusted values this query read) has. */
  "unknown_payee",
  /** An e-mail address, phone number or domain not among the user's contacts or trusted values. */
  "unknown_contact",
  /** The value came from content (an app's answer or a model's reading), not from the user. */
  "not_your_words",
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export const ViewWarningSchema = z.object({
  code: z.enum(WARNING_CODES),
  /** Lattice's words, e.g. "the 2nd character is a Cyrillic Е, not a Latin E". */
  message: z.string(),
  /** The value with every unusual character made visible, e.g. `D[Cyrillic Е]02…`. */
  visible: z.string().optional(),
});
export type ViewWarning = z.infer<typeof ViewWarningSchema>;

export const ViewSourceSchema = z.object({
  kind: z.enum(SOURCE_KINDS),
  /** The apps whose answers the value carries (app or model sources). */
  apps: z.array(z.string()),
  /** Lattice's words: "your words", "mail's answer", "a model's reading of mail's answer", "your saved data". */
  words: z.string(),
});
export type ViewSource = z.infer<typeof ViewSourceSchema>;

export const ViewFieldSchema = z.object({
  /** The view's role for this field (`to`, `subject`, `iban`, …) or the argument's name in `action`. */
  name: z.string(),
  /** Its label for a person, from the catalog (a title) or the view kind ("IBAN", "Amount"). */
  label: z.string(),
  /**
   * Who wrote `label`: `lattice` (a role's label or the admin catalog's title), or `data` (an
   * argument's own name, which an app's manifest or a spoke's agent chose): a renderer shows a
   * `data` label as quoted data, never as Lattice's words. Absent means `lattice`.
   */
  labelFrom: z.enum(["lattice", "data"]).optional(),
  /** The value as text; null when the display policy withholds it. */
  value: z.string().nullable(),
  withheld: z.boolean(),
  /** Every source of the value (a value joined from several carries each). */
  sources: z.array(ViewSourceSchema),
  /** Shown highlighted: a source other than the user's words, or any warning. */
  highlight: z.boolean(),
  warnings: z.array(ViewWarningSchema),
});
export type ViewField = z.infer<typeof ViewFieldSchema>;

export const ViewOptionSchema = z.object({
  tool: z.string(),
  app: z.string(),
  /** The app's own description: app-written, shown quoted, never as Lattice's words. */
  description: z.string(),
  /** The user's standing default for this functionality: the only way an option comes preselected. */
  preselected: z.boolean(),
});

export const ConsentViewSchema = z.object({
  kind: z.enum(VIEW_KINDS),
  /** Lattice's headline: "Send an e-mail with mail", "Pay with bank", "Choose an app for ride.book". */
  title: z.string(),
  /** The app that would receive the data or act. */
  app: z.string().optional(),
  fields: z.array(ViewFieldSchema),
  /** app_choice: the apps to choose among. */
  options: z.array(ViewOptionSchema).optional(),
  /** Why the hub asks, in plain words ("this cannot be undone", "data from mail goes to bank"). */
  reason: z.string(),
  /** How many fields carry a warning: a frontend leads with it. */
  warnings: z.number().int().nonnegative(),
});
export type ConsentView = z.infer<typeof ConsentViewSchema>;
