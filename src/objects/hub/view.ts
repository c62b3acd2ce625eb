import * as z from "zod";
import { decode } from "../../decode.ts";
import {
  type Consent,
  type DisplayItem,
  type HubEvent,
  planCalls,
  type QueryStatus,
  type ShownError,
  shownConsent,
  shownError,
} from "../../runtime/index.ts";
import type { ConsentStore } from "./consents.ts";
import type { HubStore, QueryRecord } from "./store.ts";

/** A query as the frontend sees it (API.md): display items (redacted ones marked), plan, trace, error. */
export interface QueryView {
  id: string;
  text: string;
  status: QueryStatus;
  display: Array<Omit<DisplayItem, "value"> & { value?: unknown }>;
  plan: unknown;
  verdict: unknown;
  trace: HubEvent[];
  consents: Consent[];
  error: ShownError | null;
  createdAt: string;
  updatedAt: string;
}

/** Plan and verdict are shown as stored, opaque JSON: the API documents their shape, not this view. */
const Shown = z.unknown();

export function viewQuery(store: HubStore, consents: ConsentStore, row: QueryRecord): QueryView {
  const plan = row.plan === null ? null : decode(Shown, row.plan, "a query's plan");
  const asked = consents.list({ queryId: row.id }).map(shownConsent);
  return {
    id: row.id,
    text: row.text,
    status: shownStatus(row.status, asked),
    // A redacted item shows that something was withheld, and why (its label), never the value.
    display: store.display(row.id).map((item) => (item.redacted ? { ...item, value: undefined } : item)),
    plan,
    verdict: row.verdict === null ? null : decode(Shown, row.verdict, "a query's verdict"),
    trace: store.events(0, row.id),
    consents: asked,
    // Through the boundary again on the way out, so a row written before it (or by a path that
    // skipped it) shows no more than the code's words and checked facts.
    error: row.error && shownError(row.error, planCalls(plan, row.context), row.options.boundary !== "off"),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The status every reader sees (this view, the chat adapters' `lattice.status`, the console). A
 * spoke's collaboration request is asked while its step runs: the stored status stays `running`,
 * since the step is still in flight and its outcome is written only to a running query. To the
 * user the query waits on them all the same, so a running query with a pending consent shows
 * `awaiting_consent`, as a plan step's consent does.
 */
export function shownStatus(status: QueryStatus, consents: readonly Consent[]): QueryStatus {
  return status === "running" && consents.some((c) => c.status === "pending") ? "awaiting_consent" : status;
}
