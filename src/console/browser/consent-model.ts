/**
 * A consent's view (src/runtime/consent-view.ts, built by the hub) as what the dialog shows, decided
 * without the DOM: the warnings first, each field with its label, its value as quoted data and its
 * source in words, the app choice with nothing picked unless the user's standing default says so,
 * and the scopes the consent offers. The renderer (consent.ts) only lays this out.
 */
import type { Consent, ConsentView, Scope } from "./words.ts";
import { SCOPE } from "./words.ts";

export interface WarningLine {
  /** The field's label (Lattice's or the admin's catalog words, or an argument's own name). */
  field: string;
  /** The label is an argument's own name (an app's or agent's), shown as quoted data. */
  fieldIsData: boolean;
  /** Lattice's words about it. */
  message: string;
  /** The value with its unusual characters made visible (data, shown quoted). */
  visible: string | null;
}

export interface FieldLine {
  name: string;
  label: string;
  /** The label is an argument's own name (an app's or agent's), shown as quoted data. */
  labelIsData: boolean;
  /** The value as quoted data; null when withheld. */
  value: string | null;
  withheldText: string | null;
  /** Where it came from, in Lattice's words ("your words", "contacts's answer"). */
  source: string;
  highlight: boolean;
  warned: boolean;
}

export interface OptionLine {
  tool: string;
  app: string;
  description: string;
  checked: boolean;
}

export interface ViewModel {
  title: string;
  app: string | null;
  warnings: WarningLine[];
  fields: FieldLine[];
  options: OptionLine[];
  reason: string;
  scopes: Array<{ value: Scope; text: string; checked: boolean }>;
}

/** Each source's words, joined: "your words and contacts's answer". */
function sourceWords(field: ConsentView["fields"][number]): string {
  const words = [...new Set(field.sources.map((s) => s.words))];
  if (!words.length) return "where it came from is not known";
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * The scopes a consent offers, "once" first and checked: a longer memory is the person's choice,
 * never the default.
 */
export function scopeChoices(scopes: Scope[]): ViewModel["scopes"] {
  const ordered = (["once", "session", "permanent"] as const).filter((s) => scopes.includes(s));
  return ordered.map((s, i) => ({ value: s, text: SCOPE[s], checked: i === 0 }));
}

/**
 * The assessment's headline. The hub's verdict judges the plan against the request; the view's
 * warnings judge the values. A value warned about is not "as expected", whatever the plan.
 */
export function assessmentHeadline(consent: Consent): string {
  if (consent.assessment.verdict === "warning") return "be careful";
  const warned = consent.view?.warnings ?? 0;
  return warned > 0
    ? `the request matches your words, but check the ${warned === 1 ? "warning" : "warnings"} above`
    : "as expected for your request";
}

/** The one verdict a consent's dialog shows: its tone, headline, the hub's reasons and a note. */
export interface Verdict {
  tone: "ok" | "warn";
  headline: string;
  reasons: string[];
  /** Said when the hub gave no reason; never "nothing unusual" beside a warning. */
  note: string | null;
}

/**
 * One verdict per consent, with or without a view: a warned value or the hub's warning makes the
 * whole dialog a warning, so a green "nothing unusual" never stands beside a warning list.
 */
export function verdictOf(consent: Consent): Verdict {
  const warned = consent.view?.warnings ?? 0;
  const tone = consent.assessment.verdict === "warning" || warned > 0 ? "warn" : "ok";
  const reasons = [...consent.assessment.reasons];
  const note = reasons.length
    ? null
    : tone === "ok"
      ? "Nothing unusual: the step was planned from your request."
      : `The step was planned from your request, but ${warned === 1 ? "a value above carries a warning" : "values above carry warnings"}: read ${warned === 1 ? "it" : "them"} before you answer.`;
  return { tone, headline: `Lattice's assessment: ${assessmentHeadline(consent)}`, reasons, note };
}

export function viewModel(consent: Consent & { view: ConsentView }): ViewModel {
  const v = consent.view;
  const warnings: WarningLine[] = v.fields.flatMap((f) =>
    f.warnings.map((w) => ({
      field: f.label,
      fieldIsData: f.labelFrom === "data",
      message: w.message,
      visible: w.visible ?? null,
    })),
  );
  // Options from the view carry `preselected` (the user's standing default); older consents' options
  // carry nothing and so come unpicked.
  const options = (v.options ?? consent.options ?? []).map((o) => ({
    tool: o.tool,
    app: o.app,
    description: o.description,
    checked: "preselected" in o && o.preselected === true,
  }));
  // Two options preselected would be a malformed view: then the person picks.
  if (options.filter((o) => o.checked).length > 1) for (const o of options) o.checked = false;
  return {
    title: v.title,
    app: v.app ?? null,
    warnings,
    fields: v.fields.map((f) => ({
      name: f.name,
      label: f.label,
      labelIsData: f.labelFrom === "data",
      value: f.withheld ? null : f.value,
      withheldText: f.withheld ? "withheld (above what the display policy shows)" : null,
      source: sourceWords(f),
      highlight: f.highlight || f.warnings.length > 0,
      warned: f.warnings.length > 0,
    })),
    options,
    reason: v.reason,
    scopes: scopeChoices(consent.scopes),
  };
}
