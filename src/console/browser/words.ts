/**
 * Lattice's own words for what the API names in codes: statuses, consent kinds, scopes, sources.
 * Pure (no DOM): the console's renderers and their Node tests share them.
 */
import type { components } from "@lattice/client";

type CatalogEntry = components["schemas"]["CatalogEntry"];

export type Query = components["schemas"]["Query"];
export type Consent = components["schemas"]["Consent"];
export type ConsentView = components["schemas"]["ConsentView"];
export type DisplayItem = Query["display"][number];
export type Label = DisplayItem["label"];
export type Scope = Consent["scopes"][number];

export const STATUS: Record<Query["status"], string> = {
  planning: "Planning",
  running: "Running",
  awaiting_consent: "Waiting for your answer",
  completed: "Completed",
  failed: "Failed",
  rejected: "Refused (the plan was not safe)",
};

export const KIND: Record<Consent["kind"], string> = {
  irreversible: "An action that cannot be undone",
  data_share: "Data shared between apps",
  app_selection: "Choose the app",
  collaboration: "An app asks another app",
  endorse: "Use a value from an app",
  endorse_plan: "Before the plan runs: a value will come from an app",
  authorize: "Sign in to an app",
};

export const SCOPE: Record<Scope, string> = {
  once: "Just this once",
  session: "For this session",
  permanent: "Always (until I revoke it)",
};

const FROM: Record<DisplayItem["provenance"]["from"][number], string> = {
  user: "you",
  planner: "the planner",
  app: "an app",
  model: "a model reading app content",
  artifacts: "your saved data",
};

/** Where a shown value came from, in words naming its apps: ["app contacts", "you"]. */
export function provenanceWords(item: Pick<DisplayItem, "provenance">): string[] {
  return item.provenance.from.map((f) =>
    f === "app" && item.provenance.apps.length ? `app ${item.provenance.apps.join(", ")}` : FROM[f],
  );
}

/**
 * A label's integrity in words: whether anything vouched for the value. Only the lattice's bottom
 * ("untrusted" by default) is content nobody checked; a level above it is one the admin's policy
 * trusts that app's answers to.
 */
export function trustWords(label: Label | undefined): string {
  if (!label) return "";
  return label.integrity === "untrusted" ? "not checked" : "trusted by your admin's policy";
}

/**
 * An entry's output label with both parts: an entry that declares no integrity gets the policy's
 * lowest (untrusted) at run time, and the page says so rather than leaving the part blank.
 */
export function catalogLabel(entry: Pick<CatalogEntry, "output">, integrityBottom: string): string {
  const conf = entry.output?.confidentiality ?? "internal";
  const integ = entry.output?.integrity;
  return `${conf} / ${integ ?? `${integrityBottom} (not declared: the policy's lowest)`}`;
}

const list = (xs: string[]) =>
  xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;

/**
 * Whose a shown value is, for the person who asked, with no label: "From your words", or, when an
 * app or a model reading app content wrote it, a caption that says so ("The cheapcab app wrote:").
 * `app` marks the value as another's words, to be quoted apart from Lattice's own.
 */
export function writtenBy(item: Pick<DisplayItem, "provenance" | "untrusted">): {
  app: boolean;
  text: string;
} {
  const { from, apps } = item.provenance;
  const others = from
    .filter((f) => f !== "app" && f !== "model")
    .map((f) => (f === "user" ? "your words" : FROM[f]));
  const named = apps.length ? `the ${list(apps)} app${apps.length > 1 ? "s" : ""}` : "an app";
  const unchecked = item.untrusted ? " (not checked; not Lattice's words)" : "";
  const also = others.length ? `, with ${list(others)}` : "";
  if (from.includes("model"))
    return { app: true, text: `A model wrote this, reading what ${named} sent${also}${unchecked}:` };
  if (from.includes("app")) {
    const who = named.charAt(0).toUpperCase() + named.slice(1);
    return { app: true, text: `${who} wrote${also}${unchecked}:` };
  }
  return { app: false, text: others.length ? `From ${list(others)}` : "" };
}

/** A label for the admin view, in words: how private the value is and whether anyone vouched for it. */
export function labelWords(label: Label): string[] {
  return [`Privacy level: ${label.confidentiality}`, `Trust: ${trustWords(label)} (${label.integrity})`];
}
