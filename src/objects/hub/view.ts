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
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    // A redacted item shows that something was withheld, and why (its label), never the value.
    display: store.display(row.id).map((item) => (item.redacted ? { ...item, value: undefined } : item)),
    plan,
    verdict: row.verdict === null ? null : decode(Shown, row.verdict, "a query's verdict"),
    trace: store.events(0, row.id),
    consents: consents.list({ queryId: row.id }).map(shownConsent),
    // Through the boundary again on the way out, so a row written before it (or by a path that
    // skipped it) shows no more than the code's words and checked facts.
    error: row.error && shownError(row.error, planCalls(plan, row.context), row.options.boundary !== "off"),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
