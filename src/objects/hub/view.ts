import type { Consent, ConsentStore } from "./consents.ts";
import type { DisplayItem, HubEvent, HubStore, QueryError, QueryRow, QueryStatus } from "./store.ts";

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
  error: QueryError | null;
  createdAt: string;
  updatedAt: string;
}

export function viewQuery(store: HubStore, consents: ConsentStore, row: QueryRow): QueryView {
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    // A redacted item shows that something was withheld, and why (its label), never the value.
    display: store.display(row.id).map((item) => (item.redacted ? { ...item, value: undefined } : item)),
    plan: row.plan === null ? null : JSON.parse(row.plan),
    verdict: row.verdict === null ? null : JSON.parse(row.verdict),
    trace: store.events(0, row.id),
    consents: consents.list({ queryId: row.id }),
    error: row.error === null ? null : (JSON.parse(row.error) as QueryError),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
