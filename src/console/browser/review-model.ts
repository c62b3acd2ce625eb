/**
 * The review cards' words and the admin's entry from a proposal, without the DOM (their Node tests
 * share them). Everything about a functionality comes from the review API, computed by the server
 * with the policy's code: nothing here re-derives an irreversibility or a destination.
 */
import type { components } from "@lattice/client";
import type { DiffRow } from "./manifest-diff.ts";

export type ReviewCard = components["schemas"]["ReviewCard"];
export type CardField = ReviewCard["fields"][number];
export type VersionReview = components["schemas"]["VersionReview"];
export type Proposal = components["schemas"]["CatalogProposal"];
export type CatalogEntry = components["schemas"]["CatalogEntry"];

export interface Chip {
  text: string;
  /** A class for its colour: the status, a warning, or plain. */
  tone: "new" | "changed" | "unchanged" | "removed" | "warn" | "ok" | "plain";
}

const STATUS: Record<ReviewCard["status"], string> = {
  new: "new",
  changed: "changed",
  unchanged: "unchanged",
  removed: "removed",
};

/** The card's header chips: status, binding, irreversibility, in that order. */
export function chips(card: ReviewCard): Chip[] {
  const out: Chip[] = [{ text: STATUS[card.status], tone: card.status }];
  if (card.status !== "removed") {
    out.push(
      card.binding
        ? { text: `bound to ${card.binding}`, tone: "ok" }
        : card.previousBinding
          ? { text: `was bound to ${card.previousBinding}`, tone: "plain" }
          : { text: "unbound", tone: "warn" },
    );
  }
  const by = card.irreversibleFrom === "mcp-annotations" ? "read off its MCP annotations" : "declared";
  out.push(
    card.irreversible
      ? { text: `irreversible (${by})`, tone: "warn" }
      : { text: `reversible (${by})`, tone: "plain" },
  );
  return out;
}

/** Where its calls send data, messages or money, as the policy will read them. */
export function destinationWords(d: ReviewCard["destinations"]): string {
  if (d.confirmed) return d.confirmed.length ? `${d.confirmed.join(", ")} (confirmed)` : "none (confirmed)";
  if (d.anyArgument) {
    const also = d.inferred.length ? `; its schema names ${d.inferred.join(", ")}` : "";
    return `every argument it is given (irreversible, nothing declared${also})`;
  }
  const parts = [
    ...(d.declared ?? []).map((p) => `${p} (declared)`),
    ...d.inferred.map((p) => `${p} (inferred)`),
  ];
  return parts.length ? parts.join(", ") : "none found in its schema (values can add some at call time)";
}

/** The fields that changed, and those folded away. */
export function splitFields(card: ReviewCard): { changed: ReviewCard["fields"]; same: ReviewCard["fields"] } {
  // A removed or new functionality has nothing to compare with: all its fields are shown folded.
  if (card.status === "new" || card.status === "removed") return { changed: [], same: card.fields };
  return {
    changed: card.fields.filter((f) => f.before !== f.after),
    same: card.fields.filter((f) => f.before === f.after),
  };
}

/** Manifest changes the cards do not show: everything outside functionalities and tool definitions. */
export function otherChanges(rows: DiffRow[]): DiffRow[] {
  return rows.filter((r) => !/^(functionalities|mcp\.definitions)(\[|$)/.test(r.path));
}

/**
 * The entry the admin creates from a proposal: its schemas as proposed, the name and description
 * the admin's. A description left empty is refused here, before any request.
 */
export function entryFromProposal(
  proposal: Proposal,
  name: string,
  description: string,
): { ok: true; entry: CatalogEntry } | { ok: false; field: "name" | "description"; error: string } {
  const words = description.trim();
  if (!words) return { ok: false, field: "description", error: "Write what it does, in your words." };
  const entryName = name.trim();
  if (!entryName) return { ok: false, field: "name", error: "Name the entry (like group.action)." };
  return { ok: true, entry: { ...proposal.entry, name: entryName, description: words } };
}

/** The whole bindings of a version with one more: the bindings route replaces them all. */
export function withBinding(
  bindings: Record<string, string>,
  functionality: string,
  entry: string,
): Record<string, string> {
  return { ...bindings, [functionality]: entry };
}

/** A bind select's entries: those the functionality's schemas already fit, then the others. */
export interface EntryChoices {
  fitting: string[];
  others: string[];
  /** The entry selected at first, or "" (not bound). */
  selected: string;
}

/**
 * The catalog's entries for binding one functionality, the ones it fits first (the server's `fits`,
 * from the binding check itself), and the one to preselect: its previous binding, else an entry
 * named for it. A fit is never preselected: schemas fit by shape (a tool with no arguments fits
 * many entries), and a binding lets the planner reach the app, so Approve binds only what the
 * admin chose or what the app's own name and the entry's already agree on.
 */
export function entryChoices(names: readonly string[], fits: readonly string[], guess: string): EntryChoices {
  const fit = new Set(fits);
  const fitting = names.filter((n) => fit.has(n));
  const others = names.filter((n) => !fit.has(n));
  return { fitting, others, selected: guess };
}

/** The existing entries each unbound functionality fits, by functionality, from a version's proposals. */
export function fitsByFunctionality(proposals: readonly Proposal[] | null): Record<string, string[]> {
  return Object.fromEntries((proposals ?? []).map((p) => [p.functionality, p.fits]));
}

type McpAuth = components["schemas"]["McpAuth"];

/** One line of the discovered sign-in: what it is (Lattice's words) and the URL or id (the server's). */
export interface DiscoveredRow {
  term: string;
  value: string;
}

/**
 * The concrete OAuth endpoints and client of a version whose per-user OAuth was discovered at
 * registration (mcp/discovery.ts), in the order an admin checks them; null for any other auth.
 * Only a version with a `discovered` block: endpoints a developer wrote are in the manifest diff.
 */
export function discoveredOAuth(mcp: unknown): DiscoveredRow[] | null {
  const auth = (mcp as { auth?: McpAuth } | null | undefined)?.auth;
  if (auth?.type !== "oauth" || !auth.discovered) return null;
  const d = auth.discovered;
  const rows: Array<[string, string | undefined]> = [
    ["Authorization server (issuer)", auth.issuer ?? d.authorizationServer],
    ["Authorization endpoint", auth.authorizationUrl],
    ["Token endpoint", auth.tokenUrl],
    ["Revocation endpoint", auth.revocationUrl],
    ["Registered client id", auth.clientId],
    ["Client registered at", d.registrationEndpoint],
    ["Callback URL registered", d.redirectUri],
    ["Found through (resource metadata)", d.resourceMetadataUrl],
    ["Scope", auth.scope],
  ];
  return rows.flatMap(([term, value]) => (value ? [{ term, value }] : []));
}
