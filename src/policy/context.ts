/** What the validator and verifier are told about the world besides the plan itself. */

import type { Label } from "./labels.ts";
import type { Lattices } from "./lattice.ts";
import type { Policy } from "./policy-schema.ts";

/** One approved functionality, keyed `app.functionality` in the catalog. */
export interface CatalogEntry {
  /** Irreversible functionalities demand integrity at the top of the lattice on every argument by default. */
  readonly irreversible: boolean;
  /**
   * The output label the app declares. Only its confidentiality is used: an app cannot vouch for
   * the integrity of what it returns, so that defaults to the bottom unless the tenant policy says otherwise.
   */
  readonly output: Label;
  /** The confidentiality the admin cleared the app for at approval (API.md: default `internal`). */
  readonly clearance: string;
  /** The functionality's request JSON Schema (an object schema). */
  readonly requestSchema: Readonly<Record<string, unknown>>;
}

export type Catalog = Readonly<Record<string, CatalogEntry>>;

/** What the planner was shown of an artifact: its id (the key) and its stored label. */
export interface ArtifactMeta {
  readonly label: Label;
}

export type ArtifactIndex = Readonly<Record<string, ArtifactMeta>>;

/**
 * Checks a value against a JSON Schema and returns error messages (empty = valid). Injected so that
 * src/policy stays dependency-free; the Worker passes @cfworker/json-schema.
 */
export type SchemaChecker = (schema: unknown, value: unknown) => readonly string[];

export interface PlanContext {
  readonly policy: Policy;
  /** The user's query: the only source of literals labeled with top integrity. */
  readonly query: string;
  /** Approved functionalities only; an unapproved app is not in it. */
  readonly catalog: Catalog;
  /** Artifacts whose metadata the planner was shown. */
  readonly artifacts: ArtifactIndex;
  /** Without it, literal arguments are checked for required and unknown names only. */
  readonly checkSchema?: SchemaChecker;
  /**
   * Catalog mode: the planner read trusted input only, so its literals carry the query's label; and
   * a tool step may run on every app serving its entry (`providers: "all"`).
   */
  readonly trustedPlanner?: boolean;
}

export const DEFAULT_CLEARANCE = "internal";

/** `internal` where the tenant's lattice has it; otherwise the bottom, the safe choice for a custom lattice. */
export function defaultClearance(l: Lattices): string {
  return l.confidentiality.rank(DEFAULT_CLEARANCE) >= 0 ? DEFAULT_CLEARANCE : l.confidentiality.bottom;
}
