import type { Assessment, ConsentKind, Label, TrustedPool } from "../policy/index.ts";
import { references, valuesAtPath } from "../policy/index.ts";
import type { ConsentView, ViewField, ViewKind, ViewSource } from "./consent-view.ts";
import { ROLE_LABELS, shapeOf, titleAt } from "./consent-view-shape.ts";
import type { Reading } from "./lookalike.ts";
import type { Provenance } from "./records.ts";
import { chosenAmong, inUsersWords, TrustedReferences, valueWarnings, YOUR_WORDS } from "./trusted-match.ts";
import { sourceApps } from "./values.ts";

/**
 * Builds the consent view (consent-view.ts) the hub attaches to every consent: the call's values in
 * the shape of a mail, payment, booking or share (consent-view-shape.ts), each with where it came
 * from and what a careful reader could not see (lookalike.ts, trusted-match.ts); an app choice's
 * options; a sign-in. Pure.
 */

/** Where an argument's value came from, as the interpreter tracked it (values.ts's Labeled). */
export interface ArgOrigin {
  readonly provenance: readonly Provenance[];
  readonly origins: readonly string[];
  /** Its label: whether it is content's is decided on this, never on where the view says it came from. */
  readonly label?: Label;
}

/** The longest value a view carries; its warnings are found on the whole value. */
const MAX_SHOWN = 4000;

/** Roles a person compares by eye, character by character: recipients, accounts, amounts, dates. */
const REFERENCE_ROLES = new Set(["to", "cc", "payee", "iban", "amount", "currency", "with", "when"]);
/** Roles where a value content chose sends data or money somewhere: called out when not the user's. */
const DESTINATION_ROLES = new Set(["to", "cc", "iban", "payee", "with"]);

/** The query's trusted values for the view's comparisons, each named for a person. */
export function trustedReferences(pool: TrustedPool, floor: number): TrustedReferences {
  const values = pool.trustedStrings(floor).map(({ value, origin }) => ({
    value,
    source:
      origin === "query"
        ? YOUR_WORDS
        : origin === null
          ? "an answer your policy trusts"
          : `${origin}'s answer`,
  }));
  return new TrustedReferences(values, references);
}

/** Every source of a value, in Lattice's words. */
export function sourcesOf(arg: ArgOrigin | undefined): ViewSource[] {
  if (!arg) return [{ kind: "planner", apps: [], words: "the planner's choice" }];
  // A saved value's origin names its artifact (for grants), not an app: the apps are its sources.
  const apps = sourceApps(arg.origins);
  const named = apps.length ? `${apps.join(", ")}'s answer` : "an app's answer";
  const words: Record<Provenance, ViewSource> = {
    user: { kind: "user", apps: [], words: "your words" },
    planner: { kind: "planner", apps: [], words: "the planner's choice" },
    app: { kind: "app", apps, words: named },
    model: { kind: "model", apps, words: `a model's reading of ${named}` },
    artifacts: {
      kind: "saved",
      apps,
      words: apps.length ? `your saved data, kept from ${apps.join(", ")}` : "your saved data",
    },
  };
  return arg.provenance.map((p) => words[p]);
}

/** A shown value as text: scalars as written, lists joined, anything else as compact JSON. */
export function textOf(values: readonly unknown[]): string {
  const one = (v: unknown): string =>
    typeof v === "string"
      ? v
      : v === null || v === undefined
        ? "none"
        : typeof v === "object"
          ? JSON.stringify(v)
          : String(v);
  const text = values.map(one).join(", ");
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

const isWithheld = (v: unknown) =>
  typeof v === "object" && v !== null && (v as Record<string, unknown>).withheld === true;

interface FieldInput {
  name: string;
  label: string;
  /** The label is the argument's own name, written by whoever wrote the call (not Lattice). */
  labelIsData?: boolean;
  path: string;
  /** An argument outside the shape's roles: read by its own key, never split as a path ("a.b" is one key). */
  key?: string;
  reading: Reading;
  destination: boolean;
}

/**
 * Whether content may have written or chosen an argument: its label below the top integrity. Where
 * no label is known (one writer for the whole request, or a caller that passes none) whatever did
 * not come from the user or the planner counts as content.
 */
function isContent(arg: ArgOrigin | undefined, sources: readonly ViewSource[], top: string | undefined) {
  if (arg?.label && top !== undefined) return arg.label.integrity !== top;
  return sources.some((s) => s.kind === "app" || s.kind === "model" || s.kind === "saved");
}

/**
 * Why a destination content chose is not the user's: a value equal to a trusted one is still the
 * one content picked among that source's values (an injection's author is a contact too).
 */
function notYourWords(full: string, sources: readonly ViewSource[], trusted: TrustedReferences | null) {
  const from = sources
    .filter((s) => s.kind !== "user")
    .map((s) => s.words)
    .join(" and ");
  const among = trusted && chosenAmong(full, trusted);
  const comes = from ? `it comes from ${from}` : "content you read wrote it";
  return {
    code: "not_your_words" as const,
    message: among
      ? `this was not in your words: chosen by content you read, among ${among.count} of your values from ${among.source}; ${comes}`
      : `this was not in your words: ${comes}`,
  };
}

function field(
  f: FieldInput,
  data: Readonly<Record<string, unknown>>,
  args: Readonly<Record<string, ArgOrigin>>,
  trusted: TrustedReferences | null,
  writer: ViewSource | undefined,
  topIntegrity: string | undefined,
): ViewField {
  const top = f.key ?? f.path.split(/[.[]/)[0]!;
  const sources = writer ? [writer] : sourcesOf(args[top]);
  const labeled = { name: f.name, label: f.label, ...(f.labelIsData && { labelFrom: "data" as const }) };
  if (Object.hasOwn(data, top) && isWithheld(data[top])) {
    return {
      ...labeled,
      value: null,
      withheld: true,
      sources,
      highlight: true,
      warnings: [],
    };
  }
  const found =
    f.key === undefined ? valuesAtPath(data, f.path) : Object.hasOwn(data, f.key) ? [data[f.key]] : [];
  const value = textOf(found);
  const full = found.map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))).join("\n");
  const warnings = valueWarnings(full, f.reading, trusted, references);
  const content = isContent(writer ? undefined : args[top], sources, topIntegrity);
  // A recipient content chose is called out unless the user wrote exactly it: equal to a saved
  // payee or a contact it is still content's pick among them, and says so.
  if (f.destination && content && !(trusted && inUsersWords(full, trusted))) {
    warnings.push(notYourWords(full, sources, trusted));
  }
  const highlight = warnings.length > 0 || sources.some((s) => s.kind !== "user");
  return { ...labeled, value, withheld: false, sources, highlight, warnings };
}

const TITLES: Readonly<Record<string, (app: string, tool: string) => string>> = {
  mail: (app) => `Send an e-mail with ${app}`,
  payment: (app) => `Pay with ${app}`,
  booking: (app) => `Book with ${app}`,
  share: (app) => `Share with ${app}`,
  action: (app, tool) => `Use ${tool} on ${app}`,
};

/** Why the hub asks, in plain words: the kind's own reason, then the assessment's. */
export function reasonFor(
  kind: ConsentKind,
  assessment: Assessment,
  from: readonly string[],
  to: string,
): string {
  const lead: Record<ConsentKind, string> = {
    irreversible: "this cannot be undone once it is done",
    data_share: `data from ${from.join(", ") || "your apps"} goes to ${to}`,
    endorse: "a value here did not come from you, and the policy wants your OK before it is used",
    endorse_plan:
      "before anything runs: a value this step will use will not come from you; you see the value itself when the step is about to run",
    app_selection: "more than one app can do this: you choose which one",
    authorize: `${to} needs you to sign in to it once, at its own site`,
    collaboration: `${from.join(", ")} asks to use ${to} while answering you`,
  };
  const more = assessment.reasons.filter((r) => r !== lead[kind]);
  return [lead[kind], ...more].join("; ");
}

export interface CallViewInput {
  kind: ConsentKind;
  /** The name called (catalog entry or app functionality) and the app that would act. */
  tool: string;
  app: string;
  from: readonly string[];
  /** The entry's declared view (catalog mode), if any. */
  declared?: Readonly<Record<string, string>> | undefined;
  requestSchema: unknown;
  /** Use the schema's titles as labels: only the admin's catalog is Lattice's side's words. */
  titles: boolean;
  /** The values as shown: the display policy's withheld ones as `{withheld: true}`. */
  data: Readonly<Record<string, unknown>>;
  args: Readonly<Record<string, ArgOrigin>>;
  assessment: Assessment;
  /** The query's trusted values; null where none were read (no payee or contact is called unknown). */
  trusted: TrustedReferences | null;
  /** Who wrote every value, where that is one writer (a spoke's agent) rather than each argument's origins. */
  writer?: ViewSource;
  /** The policy's top integrity: an argument labeled below it is content's, whatever its source reads. */
  topIntegrity?: string;
}

/** A call's view: its shape's roles first, then every other argument, none left out. */
export function callView(input: CallViewInput): ConsentView {
  const shape = shapeOf(input.declared, input.requestSchema);
  const title = (path: string) => (input.titles && titleAt(input.requestSchema, path)) || null;
  // Only an argument a role shows whole is left out of the rest: a nested role shows part of one.
  const covered = new Set(shape.roles.map(([, path]) => path.replace(/\[\]$/, "")));
  const fields: FieldInput[] = shape.roles.map(([role, path]) => ({
    name: role,
    label: title(path) ?? ROLE_LABELS[role] ?? role,
    path,
    reading: REFERENCE_ROLES.has(role) ? "reference" : "text",
    destination: DESTINATION_ROLES.has(role),
  }));
  for (const name of Object.keys(input.data)) {
    if (covered.has(name)) continue;
    const v = input.data[name];
    const short = typeof v !== "string" || (v.length <= 80 && !/\s{2,}|\n/.test(v));
    // A catalog title is the admin's words; a bare name is the manifest's or the calling agent's.
    const titled = /[.[]/.test(name) ? null : title(name);
    fields.push({
      name,
      label: titled ?? name,
      labelIsData: titled === null,
      path: name,
      key: name,
      reading: short ? "reference" : "text",
      destination: false,
    });
  }
  const each = fields.map((f) =>
    field(f, input.data, input.args, input.trusted, input.writer, input.topIntegrity),
  );
  const shown = shape.kind === "payment" ? withCurrency(each) : each;
  return {
    kind: shape.kind,
    title: TITLES[shape.kind]!(input.app, input.tool),
    app: input.app,
    fields: shown,
    reason: reasonFor(input.kind, input.assessment, input.from, input.app),
    warnings: shown.filter((f) => f.warnings.length > 0).length,
  };
}

/**
 * An amount as a person reads one on a bill: thousands grouped, at least two decimals. Nothing is
 * rounded away (1250.005 stays 1,250.005): the person compares what will be paid, not a rounding.
 * Text that is not a plain number is shown as it is.
 */
export function amountText(value: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return value;
  const whole = m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${m[1]}${whole}.${(m[3] ?? "").padEnd(2, "0")}`;
}

/**
 * A payment's amount with its currency in one row ("180.00 EUR"), as bills show it: the currency's
 * sources and warnings join the amount's, so nothing either carried is lost. A withheld part keeps
 * both rows as they are.
 */
function withCurrency(fields: ViewField[]): ViewField[] {
  const amount = fields.find((f) => f.name === "amount");
  if (!amount || amount.value === null) return fields;
  // A declared currency the call does not carry reads as no currency, not as an empty row.
  const currency = fields.find((f) => f.name === "currency");
  if (currency?.value === "") fields = fields.filter((f) => f !== currency);
  if (!currency || currency.value === "")
    return fields.map((f) => (f === amount ? { ...f, value: amountText(f.value!) } : f));
  if (currency.value === null) return fields;
  const sources = [...amount.sources];
  for (const s of currency.sources) if (!sources.some((t) => t.words === s.words)) sources.push(s);
  const joined: ViewField = {
    ...amount,
    value: `${amountText(amount.value)} ${currency.value}`,
    sources,
    highlight: amount.highlight || currency.highlight,
    warnings: [...amount.warnings, ...currency.warnings],
  };
  return fields.flatMap((f) => (f === amount ? [joined] : f === currency ? [] : [f]));
}

/**
 * An app choice: the options in the apps' own words, none preselected unless it is the user's
 * standing default (the gate uses a standing default without asking, so one asked has none).
 */
export function choiceView(input: {
  functionality: string;
  options: ReadonlyArray<{ tool: string; app: string; description: string }>;
  standing: string | null;
  assessment: Assessment;
}): ConsentView {
  return {
    kind: "app_choice",
    title: `Choose an app for ${input.functionality}`,
    fields: [],
    options: input.options.map((o) => ({ ...o, preselected: o.tool === input.standing })),
    reason: reasonFor("app_selection", input.assessment, [], input.functionality),
    warnings: 0,
  };
}

/** A sign-in: the app and the site the user would sign in at (its host, which the app chose). */
export function signInView(input: { app: string; url: string; assessment: Assessment }): ConsentView {
  let host: string;
  try {
    host = new URL(input.url).host;
  } catch {
    host = input.url.slice(0, 200);
  }
  const site: ViewField = {
    name: "at",
    label: "Sign-in site",
    value: host,
    withheld: false,
    sources: [{ kind: "app", apps: [input.app], words: `${input.app}'s settings` }],
    highlight: true,
    warnings: valueWarnings(host, "reference", null, references),
  };
  return {
    kind: "sign_in" satisfies ViewKind,
    title: `Sign in to ${input.app}`,
    app: input.app,
    fields: [site],
    reason: reasonFor("authorize", input.assessment, [], input.app),
    warnings: site.warnings.length ? 1 : 0,
  };
}
